import { afterAll, inject } from 'vitest';
import { type Emulator, freePort, startSqs } from '../../infra/local/emulators/emulators';
import { startEmulators } from '../../infra/local/start/stack';

// Each integration test file runs on emulators of its own: an SQS server, started when the file
// first needs it and stopped after its tests (test/harness/setup-file.ts), and a DynamoDB Local
// that no other file uses meanwhile. One DynamoDB Local for the whole suite slowed it down file by
// file, to twice its time and more: it gets slower with every stream record any of its tables ever
// took, deleted tables' included (measured: a put on a new table took 2.7 ms, and 11 ms once other
// tables had taken 8,000; the outbox puts one on every write), so the last files waited on the
// first files' history. Starting one per file cost a JVM's start and warm-up each (a third of the
// suite's CPU went to DynamoDB Local): so a file leases one from the run's pool, in a database of
// its own there, whose history is the file's only, however heavy its traffic (./dynamodb-pool.ts);
// a file that measures, or must not share a JVM, calls `ownEmulators()` and starts its own.
export type Endpoints = { dynamodb: string; sqs: string };
let started: Promise<{ endpoints: Endpoints; stop(): Promise<void> }> | undefined;
let own = false;

// Called at the top of a test file, before its hooks: its DynamoDB Local is its own.
export function ownEmulators() {
  own = true;
}

async function leasedDynamoDb(): Promise<Emulator> {
  const pool = inject('dynamodbPool');
  const leased = await fetch(`${pool}/lease`, { method: 'POST' });
  const endpoint = await leased.text();
  if (!leased.ok) throw new Error(`No DynamoDB Local from the run's pool: ${endpoint}`);
  return {
    endpoint,
    stop: async () => {
      await fetch(`${pool}/release?endpoint=${encodeURIComponent(endpoint)}`, { method: 'POST' });
    },
  };
}

export async function fileEmulators(): Promise<Endpoints> {
  started ??= (
    own ? startEmulators() : Promise.all([leasedDynamoDb(), freePort().then((port) => startSqs(port))]).then(([dynamodb, sqs]) => ({ dynamodb, sqs }))
  ).then(({ dynamodb, sqs }) => ({
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
