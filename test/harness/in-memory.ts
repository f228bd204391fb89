import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeEach } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../../infra/local/start/serverless-config';
import { nodeOf, readConfig } from '../../lib/platform/config-schema';
import { useDatabase } from '../../lib/platform/db';
import { type Node, nodeFor, type TenantSettings } from '../../lib/shared/node';
import { type MemoryDatabase, memoryDatabase, type TableProperties } from './memory-db';

// A service test in memory: the node's tables are infra/resources.yml's, held by the in-memory
// database (test/harness/memory-db), which every store reaches through lib/platform/db.ts. No
// emulator, no process: a test calls the domain's operations with the node, as its adapter would.
//
//   const mem = inMemory();                        // a fresh database before each test of the file
//   const asset = await createAsset(mem.node, { code: 'USD', scale: 2 });

// The tables infra/resources.yml declares, by logical id (MainTable...), as CloudFormation has them.
export function declaredTables(prefix = ''): Record<string, TableProperties> {
  // CloudFormation's tags (!Ref, !GetAtt) are kept as plain values: only the tables are read here.
  const tags = ['!Ref', '!GetAtt', '!Sub', '!Join', '!If', '!Equals', '!Not', '!Select', '!Split', '!FindInMap', '!ImportValue', '!GetAZs'].map((tag) => ({
    tag,
    resolve: (v: unknown) => v,
  }));
  const doc = parse(readFileSync(join(ROOT, 'infra', 'resources.yml'), 'utf8'), { customTags: tags }) as {
    Resources: Record<string, { Type: string; Properties: any }>;
  };
  return Object.fromEntries(
    Object.entries(doc.Resources)
      .filter(([, r]) => r.Type === 'AWS::DynamoDB::Table')
      .map(([id, r]) => [`${prefix}${id}`, r.Properties as TableProperties]),
  );
}

// A node of the operator's whose settings are `settings` over a test's defaults, on tables named
// by their logical ids; its queues and bus are names only (nothing in memory sends to them).
export function testNode(settings: Record<string, string> = {}): Node {
  return nodeOf(
    readConfig({
      MAIN_TABLE: 'MainTable',
      RATES_TABLE: 'RatesTable',
      IDEMPOTENCY_TABLE: 'IdempotencyTable',
      WEBHOOK_EVENTS_TABLE: 'WebhookEventsTable',
      AUTH_TABLE: 'AuthTable',
      EVENT_BUS_NAME: 'bus',
      PAYMENTS_QUEUE_URL: 'http://queues.invalid/payments',
      WEBHOOK_QUEUE_URL: 'http://queues.invalid/webhooks',
      WEBHOOK_PARKING_QUEUE_URL: 'http://queues.invalid/parking',
      WALLET_ADDRESS_URL: 'https://wallet.example',
      AUTH_SERVER_URL: 'https://auth.wallet.example',
      ILP_ADDRESS: 'test.memory',
      ...settings,
    }),
  );
}

export interface InMemory {
  readonly node: Node; // the operator's
  readonly db: MemoryDatabase; // this test's database
  tenant(t: TenantSettings): Node; // another tenant's node, on the same tables
}

// Registers, for the file it is called in, a fresh in-memory database before each test (and
// DynamoDB again after the file); answers what the running test uses.
export function inMemory(settings: Record<string, string> = {}): InMemory {
  const node = testNode(settings);
  const tables = declaredTables();
  let current: MemoryDatabase | undefined;
  beforeEach(() => {
    current = memoryDatabase(tables);
    useDatabase(current);
  });
  afterAll(() => useDatabase(undefined));
  return {
    node,
    get db() {
      if (!current) throw new Error('inMemory(): the database is made before each test');
      return current;
    },
    tenant: (t) => nodeFor(node, t),
  };
}
