import { GetItemCommand, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import { expect } from 'vitest';
import type { StackOptions } from '../../infra/local/start/stack';
import { accountOfItem } from '../../lib/ledger/rules';
import { startTestStack, type TestStack } from './stack';
import { waitFor } from './wait';

export { waitFor };

import { startWebhookReceiver, TEST_WEBHOOK_SECRET, type WebhookReceiver } from '../servers/webhook-receiver';

// An FSP's setup for payment tests: assets, liquidity, wallet addresses, and helpers that drive
// the specification's flow through the Admin API and read what the service emitted.

// Which kind of resource an Admin route's {id} names, by the route's first segment.
const KINDS: Array<[string, string]> = [
  ['/assets', 'asset'],
  ['/wallet-addresses', 'wallet'],
  ['/payment-intents', 'intent'],
  ['/quotes', 'quote'],
  ['/payments', 'payment'],
  ['/peers', 'peer'],
  ['/liquidity-withdrawals', 'withdrawal'],
];
export const resourceKindOf = (template: string) => KINDS.find(([prefix]) => template.startsWith(`${prefix}/`) || template === prefix)?.[1] ?? 'none';

export interface World {
  usd: { id: string };
  eur: { id: string };
  alice: string; // USD
  bob: string; // USD
  carlos: string; // EUR
}

export async function setUpWorld(s: TestStack, opts: { eurLiquidity?: string; eurThreshold?: string } = {}): Promise<World> {
  const usd = (await s.admin('POST', '/assets', { code: 'USD', scale: 2 })).body;
  const eur = (await s.admin('POST', '/assets', { code: 'EUR', scale: 2, ...(opts.eurThreshold && { liquidityThreshold: opts.eurThreshold }) })).body;
  await s.admin('POST', `/assets/${eur.id}/liquidity`, { amount: opts.eurLiquidity ?? '100000000' });
  const wallet = async (name: string, assetCode: string) =>
    (await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode, publicName: name })).body.address as string;
  return { usd, eur, alice: await wallet('alice', 'USD'), bob: await wallet('bob', 'USD'), carlos: await wallet('carlos', 'EUR') };
}

// A stack whose webhooks go to a real receiver, with the world set up and USD->EUR pushed at 0.9.
export async function startPaymentsStack(
  opts: { eurLiquidity?: string; eurThreshold?: string; settings?: Record<string, string>; stack?: Pick<StackOptions, 'envFile' | 'ports'> } = {},
) {
  const events: WebhookReceiver = await startWebhookReceiver();
  const s = await startTestStack({ EXCHANGE_RATES_URL: '', WEBHOOK_URL: events.url, WEBHOOK_SECRET: TEST_WEBHOOK_SECRET, ...opts.settings }, opts.stack);
  const w = await setUpWorld(s, opts);
  await s.admin('POST', '/rates', { sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9, rateTtlSecs: 86400 });
  return {
    s,
    w,
    events,
    stop: async () => {
      await s.stop();
      await events.stop();
    },
  };
}

export async function ok(p: Promise<{ status: number; body: any }>, status = 201) {
  const res = await p;
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  return res.body;
}

// intent -> quote -> payment, the specification's three calls; each answers 201. Each flow's
// intent carries its own metadata, so that concurrent flows never sign identical requests.
let flowCount = 0;
export async function createFlow(s: TestStack, from: string, to: string, incoming: { value: string; assetCode: string }, quoteExtra = {}) {
  const metadata = { flow: ++flowCount };
  const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { ...incoming, assetScale: 2 }, metadata }));
  const quote = await ok(s.admin('POST', '/quotes', { walletAddress: from, receiver: intent.id, ...quoteExtra }));
  const payment = await ok(s.admin('POST', '/payments', { walletAddress: from, quoteId: quote.id }));
  return { intent, quote, payment };
}

// A payment of `value` (USD at scale 2) from `from` to `receiver` (an intent's id or URL), quoted
// and created, not funded; and the same funded, once it has completed or failed.
export async function quotedPayment(node: Pick<TestStack, 'admin'>, from: string, receiver: string, value: string) {
  const quote = await ok(node.admin('POST', '/quotes', { walletAddress: from, receiver, receiveAmount: { value, assetCode: 'USD', assetScale: 2 } }));
  return ok(node.admin('POST', '/payments', { walletAddress: from, quoteId: quote.id }));
}
export async function fundedPayment(node: Pick<TestStack, 'admin'>, payment: { id: string }) {
  await ok(node.admin('POST', `/payments/${payment.id}/fund`), 200);
  return paymentIn(node, payment.id, ['completed', 'failed'], 60_000);
}

export const paymentIn = (s: Pick<TestStack, 'admin'>, id: string, states: string[], timeoutMs?: number) =>
  waitFor(
    `payment ${id} in ${states}`,
    async () => {
      const p = (await s.admin('GET', `/payments/${id}`)).body;
      return states.includes(p.state) ? p : undefined;
    },
    timeoutMs,
  );

// The state of each payment of a node, by id, from its listing: a read of up to 100 a page, where a
// read of each payment would be one request each (a probe of a wait for many payments).
async function listedPaymentStates(s: Pick<TestStack, 'admin'>): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  let cursor: string | undefined;
  do {
    const page = (await ok(s.admin('GET', `/payments?limit=100${cursor ? `&cursor=${cursor}` : ''}`), 200)) as { items: any[]; nextCursor?: string };
    for (const p of page.items) seen.set(p.id, p.state);
    cursor = page.nextCursor;
  } while (cursor);
  return seen;
}

// Whether every one of `ids` is listed in one of `states` (true, else undefined: a waitFor probe).
export const allListedIn = async (s: Pick<TestStack, 'admin'>, ids: string[], states: string[]) => {
  const seen = await listedPaymentStates(s);
  return ids.every((id) => states.includes(seen.get(id) ?? '')) || undefined;
};

// Many payments' waits as one: each probe lists the node's payments, not a read of each payment,
// and once every one is in `states`, each is read as paymentIn reads it.
export async function paymentsIn(s: Pick<TestStack, 'admin'>, ids: string[], states: string[], timeoutMs?: number) {
  await waitFor(`${ids.length} payments in ${states}`, () => allListedIn(s, ids, states), timeoutMs);
  return Promise.all(ids.map((id) => paymentIn(s, id, states)));
}

export async function queueDepth(s: TestStack, logicalId: string) {
  const { Attributes } = await s.sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: s.refs[logicalId].ref,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return Number(Attributes!.ApproximateNumberOfMessages) + Number(Attributes!.ApproximateNumberOfMessagesNotVisible);
}

// Every account balance in the ledger, read exactly; double entry means they sum to zero. A split
// account (settlement, liquidity, a peer's) is the sum of its items (ledgerItems has them one by one).
export async function ledger(s: Pick<TestStack, 'dynamo' | 'env'>): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  for (const [id, balance] of await ledgerItems(s)) {
    const account = accountOfItem(id);
    out.set(account, (out.get(account) ?? 0n) + balance);
  }
  return out;
}

export async function ledgerItems(s: Pick<TestStack, 'dynamo' | 'env'>): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  let ExclusiveStartKey: Record<string, any> | undefined;
  do {
    const res: any = await s.dynamo.send(
      new ScanCommand({
        TableName: s.env.MAIN_TABLE,
        FilterExpression: 'begins_with(pk, :a)',
        ExpressionAttributeValues: { ':a': { S: 'ACCT#' } },
        ExclusiveStartKey,
      }),
    );
    for (const item of res.Items) out.set(item.pk.S.slice('ACCT#'.length), BigInt(item.balance.N)); // the operator's accounts
    ExclusiveStartKey = res.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}

export const sum = (m: Map<string, bigint>) => [...m.values()].reduce((a, b) => a + b, 0n);
export const units = (value: string | number) => BigInt(value) * 10n ** 18n; // scale 2 -> ledger scale 20

// The packets a remote payment sent (lib/payments/store.ts keeps them under the payment), as the
// table holds them: their id, state and amounts (ledger units in the peer's asset, and the source's).
export async function packetsOf(s: Pick<TestStack, 'dynamo' | 'env'>, paymentId: string) {
  const res = await s.dynamo.send(
    new QueryCommand({
      TableName: s.env.MAIN_TABLE,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :k)',
      ExpressionAttributeValues: { ':pk': { S: `PAYMENT#${paymentId}` }, ':k': { S: 'PKT#' } },
    }),
  );
  return (res.Items ?? []).map((i) => ({ id: i.id.S!, state: i.state.S!, peerUnits: BigInt(i.peerUnits.S!), source: BigInt(i.source.S!) }));
}

// Whether a node's transfer moved money (a packet's credit voided at its expiry moved none): e.g.
// `ilp:<peer id>:<condition>`, a packet from that peer credited.
export const transferMoved = async (s: Pick<TestStack, 'dynamo' | 'env'>, transferId: string) =>
  ((
    await s.dynamo.send(
      new GetItemCommand({ TableName: s.env.MAIN_TABLE, Key: { pk: { S: `XFER#${transferId}` }, sk: { S: 'XFER' } }, ProjectionExpression: 'legs' }),
    )
  ).Item?.legs?.L?.length ?? 0) > 0;

// The packets a node lists for reconciliation with a peer since `from`, every page, and their total.
export async function reconciliationOf(node: Pick<TestStack, 'admin'>, peerId: string, from: string) {
  const items: any[] = [];
  let cursor: string | null = null;
  let total: any;
  do {
    const page: any = await ok(
      node.admin('GET', `/peers/${peerId}/reconciliation?from=${encodeURIComponent(from)}&limit=25${cursor ? `&cursor=${cursor}` : ''}`),
      200,
    );
    items.push(...page.items);
    total = page.total;
    cursor = page.nextCursor;
  } while (cursor);
  return { items, total };
}

// Until a node's payments have `count` fulfilled packets among them (packets flow).
export const packetsFulfilled = (s: Pick<TestStack, 'dynamo' | 'env'>, paymentIds: string[], count: number) =>
  waitFor(
    `${count} packets to be fulfilled`,
    async () => {
      const paid = (await Promise.all(paymentIds.map((id) => packetsOf(s, id)))).flat().filter((k) => k.state === 'fulfilled');
      return paid.length >= count ? true : undefined;
    },
    30_000,
  );
