import { afterAll } from 'vitest';
import { startEmulators } from '../../infra/local/start/stack';

// Each integration test file runs on emulators of its own (a DynamoDB Local and an SQS server),
// started when the file first needs them and stopped after its tests (test/harness/setup-file.ts). One
// set for the whole suite slowed it down file by file, to twice its time and more: DynamoDB Local
// gets slower with every stream record any of its tables ever took, deleted tables' included
// (measured: a put on a new table took 2.7 ms, and 11 ms once other tables had taken 8,000; the
// outbox puts one on every write), so the last files waited on the first files' history.
export type Endpoints = { dynamodb: string; sqs: string };
let started: Promise<{ endpoints: Endpoints; stop(): Promise<void> }> | undefined;

export async function fileEmulators(): Promise<Endpoints> {
  started ??= startEmulators().then(({ dynamodb, sqs }) => ({
    endpoints: { dynamodb: dynamodb.endpoint, sqs: sqs.endpoint },
    stop: async () => {
      await sqs.stop();
      await dynamodb.stop();
    },
  }));
  return (await started).endpoints;
}

// Registered by the setup file before the test file's own hooks, so it runs after them.
export function stopFileEmulatorsAfterAll() {
  afterAll(async () => {
    if (started) await (await started).stop();
  });
}
