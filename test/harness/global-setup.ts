import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import '../../infra/local/start/quiet'; // the Node version note, once for the run (workers: vitest.config.ts)
import { serverlessFiles } from '../../infra/local/start/serverless-config';
import { startDynamoDbPool } from './dynamodb-pool';

declare module 'vitest' {
  export interface ProvidedContext {
    packageFolder: string;
    dynamodbPool: string;
    serverlessFiles: Record<string, unknown>;
  }
}

// The run shares three things: DynamoDB Locals that test files lease in turn (./dynamodb-pool.ts,
// test/harness/emulators.ts), a folder for the package tests' `serverless package`
// (test/tooling/package/packaged.ts), so that the production template is packaged once for all of
// them, apart from any other run's, and removed after, and serverless.yml's files as read (about
// a CPU-second a file's process no longer spends on the YAML and the routes: ./setup-file.ts).
export default async function setup(project: TestProject) {
  const folder = mkdtempSync(join(tmpdir(), 'sls-package-'));
  project.provide('packageFolder', folder);
  project.provide('serverlessFiles', serverlessFiles());
  const pool = await startDynamoDbPool();
  project.provide('dynamodbPool', pool.url);
  return async () => {
    await pool.stop();
    rmSync(folder, { recursive: true, force: true });
  };
}
