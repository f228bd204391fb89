import { randomUUID } from 'node:crypto';
import { DescribeTableCommand, DynamoDBClient, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import type { EventBridgeEmulator } from '../../infra/local/emulators/eventbridge';
import { provision } from '../../infra/local/emulators/provision';
import { loadService, type ServiceDef } from '../../infra/local/start/serverless-config';
import { fileEmulators, ownEmulators } from '../harness/emulators';

// A DynamoDB Local of its own, not one of the run's pool (test/harness/emulators.ts):
// a new index on a DynamoDB Local with others' history was seen to stay CREATING for minutes.
ownEmulators();

// A local data folder kept from before a release that adds an index gets it at the next start,
// with the items already there, as a CloudFormation update backfills it. (On a DynamoDB Local busy
// with every other test file's history, a new index was seen to stay CREATING for minutes, where
// alone it is active within a second: each file has its own now, test/harness/emulators.ts.)
let dynamo: DynamoDBClient;
let sqs: SQSClient;
beforeAll(async () => {
  const emulators = await fileEmulators();
  sqs = new SQSClient({ endpoint: emulators.sqs, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
  dynamo = new DynamoDBClient({ endpoint: emulators.dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
});
afterAll(() => {
  dynamo?.destroy();
  sqs?.destroy();
});

describe('provisioning a kept table', () => {
  it('adds the indexes the template has and the table lacks', async () => {
    const prefix = `prov${randomUUID().slice(0, 8)}`;
    const service = loadService();
    const table = service.resources.WebhookEventsTable;
    type Index = { IndexName: string; KeySchema: { AttributeName: string }[] };
    const indexes: Index[] = table.Properties!.GlobalSecondaryIndexes;
    // The table as it was: without the index, nor its key's attribute.
    const only = (kept: Index[]): ServiceDef => {
      const keys = new Set([...table.Properties!.KeySchema, ...kept.flatMap((i) => i.KeySchema)].map((k) => k.AttributeName));
      const AttributeDefinitions = table.Properties!.AttributeDefinitions.filter((a: { AttributeName: string }) => keys.has(a.AttributeName));
      return {
        ...service,
        resources: { WebhookEventsTable: { ...table, Properties: { ...table.Properties, AttributeDefinitions, GlobalSecondaryIndexes: kept } } },
      };
    };
    const clients = { dynamo, sqs, events: {} as EventBridgeEmulator }; // a table needs neither queues nor a bus
    const refs = await provision(only(indexes.filter((i) => i.IndexName !== 'ByResource')), clients, prefix);
    const TableName = refs.WebhookEventsTable.ref;
    const item = { id: { S: 'e1' }, resourcePk: { S: 'resource:r1' }, statusSort: { S: 't#e1' }, status: { S: 'delivered' } };
    await dynamo.send(new PutItemCommand({ TableName, Item: item }));

    await provision(only(indexes), clients, prefix);
    const { Table } = await dynamo.send(new DescribeTableCommand({ TableName }));
    expect(Table!.GlobalSecondaryIndexes!.map((i) => [i.IndexName, i.IndexStatus]).sort()).toEqual([
      ['ByLookup', 'ACTIVE'],
      ['ByResource', 'ACTIVE'],
      ['ByStatus', 'ACTIVE'],
    ]);
    const { Items } = await dynamo.send(
      new QueryCommand({
        TableName,
        IndexName: 'ByResource',
        KeyConditionExpression: 'resourcePk = :pk',
        ExpressionAttributeValues: { ':pk': { S: 'resource:r1' } },
      }),
    );
    expect(Items).toEqual([item]);
  });
});
