import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import '../../infra/local/start/quiet'; // the Node version note, once for the run (workers: vitest.config.ts)
import { startDynamoDbPool } from './dynamodb-pool';

declare module 'vitest' {
  export interface ProvidedContext {
    packageFolder: string;
    dynamodbPool: string;
  }
}

// The run shares two things: DynamoDB Locals that test files lease in turn (./dynamodb-pool.ts,
// test/harness/emulators.ts), and a folder for the package tests' `serverless package`
// (test/tooling/package/packaged.ts), so that the production template is packaged once for all of
// them, apart from any other run's, and removed after.
export default async function setup(project: TestProject) {
  const folder = mkdtempSync(join(tmpdir(), 'sls-package-'));
  project.provide('packageFolder', folder);
  const pool = await startDynamoDbPool();
  project.provide('dynamodbPool', pool.url);
  return async () => {
    await pool.stop();
    rmSync(folder, { recursive: true, force: true });
  };
}
