import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import '../../infra/local/start/quiet'; // the Node version note, once for the run (workers: vitest.config.ts)
import { newSigningKey } from '../../infra/local/start/operators';
import { serverlessFiles } from '../../infra/local/start/serverless-config';
import { startDynamoDbPool } from './dynamodb-pool';

declare module 'vitest' {
  export interface ProvidedContext {
    packageFolder: string;
    dynamodbPool: string;
    operatorsKey: string;
  }
}

// The run shares four things: DynamoDB Locals that test files lease in turn (./dynamodb-pool.ts,
// test/harness/emulators.ts), a folder for the package tests' `serverless package`
// (test/tooling/package/packaged.ts), so that the production template is packaged once for all of
// them, apart from any other run's, and removed after, serverless.yml's files as read (about
// a CPU-second that each process of the run, a test file's, an npm start, a CLI, no longer spends
// on the YAML and the routes: LOCAL_SERVERLESS_FILES, which every process inherits), and
// the signing key of its stacks' console operators (./stack.ts: an RSA key pair a stack, a tenth of
// a CPU-second or more, was most of what a stack's start cost its file's process).
export default async function setup(project: TestProject) {
  const folder = mkdtempSync(join(tmpdir(), 'sls-package-'));
  project.provide('packageFolder', folder);
  const filesFolder = mkdtempSync(join(tmpdir(), 'serverless-files-'));
  const files = join(filesFolder, 'files.json');
  writeFileSync(files, JSON.stringify(serverlessFiles()));
  process.env.LOCAL_SERVERLESS_FILES = files;
  project.provide('operatorsKey', newSigningKey());
  const pool = await startDynamoDbPool();
  project.provide('dynamodbPool', pool.url);
  return async () => {
    await pool.stop();
    rmSync(folder, { recursive: true, force: true });
    rmSync(filesFolder, { recursive: true, force: true });
  };
}
