import '../infra/local/quiet'; // the Node version note, once for the run (workers: vitest.config.ts)
import type { TestProject } from 'vitest/node';
import { startEmulators } from '../infra/local/stack';

// One DynamoDB Local and one SQS server for the whole run, on free ports; each test file then
// provisions its own tables and queues under a unique prefix.
declare module 'vitest' {
  export interface ProvidedContext {
    emulators: { dynamodb: string; sqs: string };
  }
}

export default async function setup(project: TestProject) {
  const { dynamodb, sqs } = await startEmulators();
  project.provide('emulators', { dynamodb: dynamodb.endpoint, sqs: sqs.endpoint });
  return async () => {
    await sqs.stop();
    await dynamodb.stop();
  };
}
