import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { parse } from 'yaml';
import { ROOT } from '../../infra/local/start/serverless-config';
import { createAsset, moveLiquidity } from '../../lib/assets';
import { accountOfItem } from '../../lib/ledger/rules';
import { handlePaymentMessage } from '../../lib/payments/deliver';
import type { PaymentMessage } from '../../lib/payments/schemas';
import { nodeOf, readConfig } from '../../lib/platform/config-schema';
import { useDatabase } from '../../lib/platform/db';
import { OUTBOX_SORT_PREFIX, type Outbound } from '../../lib/platform/events';
import { injectedFaults, type Runtime, useRuntime } from '../../lib/platform/runtime';
import { pushRate } from '../../lib/rates';
import { DomainError } from '../../lib/shared/errors';
import { type Node, nodeFor, type TenantSettings } from '../../lib/shared/node';
import { createWalletAddress } from '../../lib/wallet-addresses';
import { type MemoryDatabase, memoryDatabase, type TableProperties } from './memory-db';
import { sdkClientOverDatabase } from './memory-db/sdk-client';

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
      AUDIT_BUCKET: 'audit',
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
// DynamoDB again after the file); answers what the running test uses. `fresh: 'file'`: one database
// for the file's tests, which then share what they make, as an integration file's tests share its
// stack: a container's caches (a wallet address's record by its URL, an asset by its id) outlive a
// database that is made anew, so tests that pay through cached wallet addresses take this.
export function inMemory(settings: Record<string, string> = {}, { fresh = 'test' }: { fresh?: 'test' | 'file' } = {}): InMemory {
  const node = testNode(settings);
  const tables = declaredTables();
  let current: MemoryDatabase | undefined;
  (fresh === 'file' ? beforeAll : beforeEach)(() => {
    current = memoryDatabase(tables);
    useDatabase(current, sdkClientOverDatabase());
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

// What a domain operation refused with: its DomainError's status and code, as the Admin API
// answers them ("422 insufficient_liquidity"); any other outcome fails the test.
export async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof DomainError) return `${e.status} ${e.code}`;
    throw e;
  }
  throw new Error('expected a DomainError');
}

// Every account balance of the operator's ledger, read exactly from the table (as
// test/harness/world.ts ledger() reads DynamoDB): a split account is the sum of its items.
export function ledgerOf(db: MemoryDatabase, table = 'MainTable'): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const item of db.items(table)) {
    if (!String(item.pk).startsWith('ACCT#')) continue;
    const account = accountOfItem(String(item.pk).slice('ACCT#'.length));
    out.set(account, (out.get(account) ?? 0n) + BigInt(item.balance));
  }
  return out;
}

// The events committed to the outbox (what the relay would put on the bus), oldest first.
export function eventsOf(db: MemoryDatabase, type?: string, table = 'MainTable'): { type: string; data: any }[] {
  return db
    .items(table)
    .filter((i) => String(i.sk).startsWith(OUTBOX_SORT_PREFIX))
    .flatMap((i) => JSON.parse(i.out) as Outbound[])
    .flatMap((o) => (o.kind === 'event' ? [o.event] : []))
    .sort((a, b) => (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0))
    .filter((e) => !type || e.type === type)
    .map((e) => ({ type: e.type, data: e.data }));
}

// The payment worker, as the payments queue would run it: delivers each payment message committed
// to the outbox since the last run, once, in the order committed; answers how many it delivered.
const delivered = new WeakMap<MemoryDatabase, Set<string>>();
export async function runPaymentWorker(mem: InMemory): Promise<number> {
  const done = delivered.get(mem.db) ?? new Set<string>();
  delivered.set(mem.db, done);
  let n = 0;
  for (;;) {
    const next = mem.db
      .items(mem.node.tables.main)
      .filter((i) => String(i.sk).startsWith(OUTBOX_SORT_PREFIX))
      .flatMap((i) => JSON.parse(i.out) as Outbound[])
      .find((o): o is Extract<Outbound, { kind: 'message' }> => o.kind === 'message' && o.queueUrl === mem.node.queues.payments && !done.has(o.id));
    if (!next) return n;
    done.add(next.id);
    await handlePaymentMessage(mem.node, JSON.parse(next.body), { messageId: next.id, attributes: { ApproximateReceiveCount: '1' } } as never);
    n++;
  }
}

// An FSP's setup for payment tests, in memory (test/harness/world.ts setUpWorld's): USD and EUR
// (EUR with liquidity), wallet addresses alice and bob in USD and carlos in EUR, USD->EUR at 0.9.
export async function memoryWorld(mem: InMemory) {
  const usd = await createAsset(mem.node, { code: 'USD', scale: 2 });
  const eur = await createAsset(mem.node, { code: 'EUR', scale: 2 });
  await moveLiquidity(mem.node, eur.id, '100000000', 'deposit');
  const wallet = async (name: string, assetCode: string) =>
    (await createWalletAddress(mem.node, { address: `${mem.node.urls.walletAddresses}/${name}`, assetCode, publicName: name } as never)).address;
  const world = { usd, eur, alice: await wallet('alice', 'USD'), bob: await wallet('bob', 'USD'), carlos: await wallet('carlos', 'EUR') };
  await pushRate(mem.node, { sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9, rateTtlSecs: 86400 } as never);
  return world;
}

// The payment messages committed to the outbox (what the relay would put on the payments queue),
// each with its id, in the order committed: for a test that delivers one itself, twice or racing another.
export function paymentMessagesOf(mem: InMemory): { id: string; body: PaymentMessage }[] {
  return mem.db
    .items(mem.node.tables.main)
    .filter((i) => String(i.sk).startsWith(OUTBOX_SORT_PREFIX))
    .flatMap((i) => JSON.parse(i.out) as Outbound[])
    .flatMap((o) => (o.kind === 'message' && o.queueUrl === mem.node.queues.payments ? [{ id: o.id, body: JSON.parse(o.body) }] : []));
}

// One delivery of a payments queue message, as the worker's Lambda receives it (`id`: its message id).
export const deliverPaymentMessage = (mem: InMemory, body: unknown, id: string) =>
  handlePaymentMessage(mem.node, body, { messageId: id, attributes: { ApproximateReceiveCount: '1' } } as never);

// Runs `work` with the crash points `names` injected (lib/platform/faults.ts), as PAYMENT_FAULTS
// injects them in a function's process.
export async function withFaults<T>(names: string[], work: () => Promise<T>): Promise<T> {
  const before = injectedFaults();
  useRuntime({ faults: () => names } as Partial<Runtime> as Runtime);
  try {
    return await work();
  } finally {
    useRuntime({ faults: () => before } as Partial<Runtime> as Runtime);
  }
}
