import { beforeAll, describe, expect, it } from 'vitest';
import { BACKSTOP_MS, loadPackaged, ofType, template } from './packaged';

// The tables and the secrets: kept through a stack's removal, and the tables' indexes and TTL.
// The production template is packaged once for the run (./packaged.ts).

beforeAll(loadPackaged, BACKSTOP_MS);

describe('tables and secrets', () => {
  it('has every table with its TTL attribute', () => {
    const tables = Object.fromEntries(ofType('AWS::DynamoDB::Table'));
    expect(tables.MainTable.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    expect(tables.IdempotencyTable.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'expiration', Enabled: true });
    expect(tables.RatesTable.Properties.TimeToLiveSpecification).toEqual({ AttributeName: 'ttl', Enabled: true });
    for (const [name, table] of Object.entries(tables)) expect(table.Properties.TimeToLiveSpecification?.Enabled, name).toBe(true);
  });

  it('keeps every table through a stack removal or replacement: retained, deletion-protected, with point-in-time recovery', () => {
    const tables = ofType('AWS::DynamoDB::Table');
    expect(tables.length).toBe(5);
    for (const [name, table] of tables) {
      expect([table.DeletionPolicy, table.UpdateReplacePolicy], name).toEqual(['Retain', 'Retain']);
      expect(table.Properties.DeletionProtectionEnabled, name).toBe(true);
      expect(table.Properties.PointInTimeRecoverySpecification, name).toEqual({ PointInTimeRecoveryEnabled: true });
    }
  });

  it('adds one index to the webhook events table, ByResource, keys, status and type only, and leaves ByStatus and ByLookup as they were', () => {
    // CloudFormation adds one global secondary index per update of a table: a stack deployed with
    // ByStatus and ByLookup takes this one in one deploy.
    const props = template.Resources.WebhookEventsTable.Properties;
    const newest = (key: string) => [
      { AttributeName: key, KeyType: 'HASH' },
      { AttributeName: 'statusSort', KeyType: 'RANGE' },
    ];
    expect(props.GlobalSecondaryIndexes).toEqual([
      { IndexName: 'ByStatus', KeySchema: newest('statusShard'), Projection: { ProjectionType: 'ALL' } },
      { IndexName: 'ByLookup', KeySchema: newest('lookupPk'), Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['status', 'type'] } },
      { IndexName: 'ByResource', KeySchema: newest('resourcePk'), Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['status', 'type'] } },
    ]);
    expect(props.AttributeDefinitions.map((a: { AttributeName: string }) => a.AttributeName)).toEqual([
      'id',
      'statusShard',
      'statusSort',
      'lookupPk',
      'resourcePk',
    ]);
  });

  it('adds one index to the main table, Lists2, for the transfer history, and leaves the others as they were', () => {
    // One index per update of a table (as above): a stage deployed before the history takes it in one deploy.
    const props = template.Resources.MainTable.Properties;
    expect(props.GlobalSecondaryIndexes.map((i: { IndexName: string }) => i.IndexName)).toEqual(['OpenIntents', 'Lists', 'Lists2']);
    expect(props.GlobalSecondaryIndexes[2]).toEqual({
      IndexName: 'Lists2',
      KeySchema: [
        { AttributeName: 'list2Pk', KeyType: 'HASH' },
        { AttributeName: 'listSk', KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: ['transferId', 'kind', 'resource', 'debit', 'credit', 'amount', 'createdAt'] },
    });
  });

  it('keeps every secret through a stack removal or replacement, and lets a new stack use the kept ones (SECRETS_EXISTING=1)', () => {
    const secrets = ofType('AWS::SecretsManager::Secret');
    for (const [id, secret] of secrets) {
      expect([secret.DeletionPolicy, secret.UpdateReplacePolicy], id).toEqual(['Retain', 'Retain']);
      expect((secret as { Condition?: string }).Condition, id).toBe('CreatesSecrets');
    }
    const conditions = (template as unknown as { Conditions: Record<string, unknown> }).Conditions;
    expect(conditions.CreatesSecrets).toEqual({ 'Fn::Equals': ['', ''] }); // created unless SECRETS_EXISTING is set
  });
});
