import { randomBytes } from 'node:crypto';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { translation, useDatabase } from '../../lib/platform/db';
import { dynamoOverHttp } from '../../lib/platform/dynamodb-http';
import { fileEmulators } from '../harness/emulators';
import { declaredTables, testNode } from '../harness/in-memory';
import { storeCases } from '../harness/store-cases';

// The store cases on DynamoDB Local, the engine the in-memory database stands in for
// (test/unit/memory-store.test.ts runs the same there): where they disagree, the in-memory one is wrong.
describe('DynamoDB Local', () => {
  const prefix = `s${randomBytes(4).toString('hex')}-`;
  const node = testNode({
    MAIN_TABLE: `${prefix}MainTable`,
    RATES_TABLE: `${prefix}RatesTable`,
    IDEMPOTENCY_TABLE: `${prefix}IdempotencyTable`,
    WEBHOOK_EVENTS_TABLE: `${prefix}WebhookEventsTable`,
    AUTH_TABLE: `${prefix}AuthTable`,
  });
  beforeAll(async () => {
    const { dynamodb } = await fileEmulators();
    const client = new DynamoDBClient({ endpoint: dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    for (const [TableName, p] of Object.entries(declaredTables(prefix)))
      await client.send(
        new CreateTableCommand({
          TableName,
          BillingMode: 'PAY_PER_REQUEST',
          AttributeDefinitions: p.AttributeDefinitions,
          KeySchema: p.KeySchema,
          GlobalSecondaryIndexes: p.GlobalSecondaryIndexes,
        }),
      );
    // What the stores send through on Lambda (lib/platform/db.ts).
    useDatabase(dynamoOverHttp(client, translation) as never);
  });
  afterAll(() => useDatabase(undefined));
  storeCases(() => node);
});
