import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookEventNames } from '../../lib/webhooks/schemas';
import type { TestStack } from '../harness/stack';
import { ok, paymentIn, startPaymentsStack, type World, waitFor } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// Every AWS call a request makes is a round trip on its latency: each route makes only those it
// needs, counted by the local runtime. A change that adds one fails here, on purpose.
let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack());
});
afterAll(() => stop());

// The calls one invocation of `fn` makes while `op` runs (op must invoke it exactly once).
async function callsOf(fn: string, op: () => Promise<unknown>) {
  const before = s.stats()[fn] ?? { invocations: 0, calls: {} };
  await op();
  const after = s.stats()[fn];
  expect(after.invocations - before.invocations, `${fn} invocations`).toBe(1);
  return Object.fromEntries(
    Object.entries(after.calls)
      .map(([k, n]) => [k, n - (before.calls[k] ?? 0)])
      .filter(([, n]) => n),
  );
}

describe('AWS calls per request', () => {
  it('the create flow: one write call per write, one read per thing read, nothing published on the way', async () => {
    const intentBody = (n: number) => ({ walletAddress: w.carlos, incomingAmount: { value: '900', assetCode: 'EUR', assetScale: 2 }, metadata: { n } });
    // A container reads a wallet address once and then keeps it: a first flow warms that up.
    const first = await ok(s.admin('POST', '/payment-intents', intentBody(0)));
    await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: first.id }));
    let intent: any;
    expect(await callsOf('paymentIntentsCreate', async () => (intent = await ok(s.admin('POST', '/payment-intents', intentBody(1)))))).toEqual({
      // The asset, for the receiving fee the intent keeps, and the wallet address's standing now
      // (its status and approvalRequired), in one read.
      'DynamoDB.BatchGetItem': 1,
      'DynamoDB.TransactWriteItems': 1,
    });
    let quote: any;
    expect(await callsOf('quotesCreate', async () => (quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id }))))).toEqual({
      // The intent, and at once the sender's asset, for its sending fee, and its standing now, in
      // one read (readTogether); then the pushed and the pulled rate. Its one write, the quote, which
      // holds its signature's guard, goes alone (lib/platform/tx writeAlone): no transaction.
      'DynamoDB.BatchGetItem': 2,
      'DynamoDB.PutItem': 1,
    });
    let payment: any;
    expect(
      await callsOf('paymentsCreate', async () => (payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id })))),
    ).toEqual({
      'DynamoDB.BatchGetItem': 1, // the quote and the sender's standing now
      'DynamoDB.TransactWriteItems': 1,
    });
    expect(await callsOf('paymentsFund', () => ok(s.admin('POST', `/payments/${payment.id}/fund`), 200))).toEqual({
      'DynamoDB.BatchGetItem': 1, // the payment and the place its signature's guard would be, had a refusal left it
      'DynamoDB.TransactWriteItems': 1,
    });
    expect(await callsOf('paymentsGet', () => ok(s.admin('GET', `/payments/${payment.id}`), 200))).toEqual({ 'DynamoDB.GetItem': 1 });
    await paymentIn(s, payment.id, ['completed']);
  });

  // The rate and the signature's replay guard, in one transaction (they were two writes).
  it('a pushed rate: one write, the replay guard in it', async () => {
    const push = () => ok(s.admin('POST', '/rates', { sourceAssetCode: 'USD', destinationAssetCode: 'GBP', rate: 0.8 }));
    await push(); // a warm container
    expect(await callsOf('ratesPush', push)).toEqual({ 'DynamoDB.TransactWriteItems': 1 });
  });

  it("the worker reads the payment, its intent and the intent's wallet address's status in one read, and delivers in one transaction", async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
    const quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id }));
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    const before = s.stats().paymentsWorker ?? { invocations: 0, calls: {} };
    await paymentIn(s, payment.id, ['completed']);
    const after = await waitFor('the worker to return', async () =>
      s.stats().paymentsWorker.invocations > before.invocations ? s.stats().paymentsWorker : undefined,
    );
    const delta = (k: string) => (after.calls[k] ?? 0) - (before.calls[k] ?? 0);
    // The payment, its intent and the intent's wallet address's status (read afresh: a freeze holds
    // for every credit; docs/api.md, "Wallet address status"), all three in one read.
    expect(delta('DynamoDB.BatchGetItem')).toBe(1);
    expect(delta('DynamoDB.GetItem')).toBe(0);
    expect(delta('DynamoDB.TransactWriteItems')).toBe(1);
  });

  it('a page of payments or payment intents: a query per partition of the states asked for, and the records of all in one read', async () => {
    const alice = `walletAddress=${encodeURIComponent(w.alice)}`;
    const bob = `walletAddress=${encodeURIComponent(w.bob)}`;
    await ok(s.admin('GET', `/payments?${alice}`), 200); // a container reads a wallet address once
    await ok(s.admin('GET', `/payment-intents?${bob}`), 200);
    expect(await callsOf('paymentsList', () => ok(s.admin('GET', '/payments'), 200))).toEqual({ 'DynamoDB.Query': 20, 'DynamoDB.BatchGetItem': 1 });
    expect(await callsOf('paymentsList', () => ok(s.admin('GET', '/payments?state=completed'), 200))).toEqual({
      'DynamoDB.Query': 4,
      'DynamoDB.BatchGetItem': 1,
    });
    expect(await callsOf('paymentsList', () => ok(s.admin('GET', `/payments?${alice}`), 200))).toEqual({ 'DynamoDB.Query': 5 });
    expect(await callsOf('paymentsList', () => ok(s.admin('GET', `/payments?${alice}&state=completed`), 200))).toEqual({ 'DynamoDB.Query': 1 });
    // Every state's partitions: six states, four each.
    expect(await callsOf('paymentIntentsList', () => ok(s.admin('GET', '/payment-intents'), 200))).toEqual({
      'DynamoDB.Query': 24,
      'DynamoDB.BatchGetItem': 1,
    });
    expect(await callsOf('paymentIntentsList', () => ok(s.admin('GET', '/payment-intents?state=pending'), 200))).toEqual({
      'DynamoDB.Query': 4,
      'DynamoDB.BatchGetItem': 1,
    });
    // A wallet's intents are listed by listing items (credits do not rewrite the list), then read.
    expect(await callsOf('paymentIntentsList', () => ok(s.admin('GET', `/payment-intents?${bob}&state=completed`), 200))).toEqual({
      'DynamoDB.Query': 1,
      'DynamoDB.BatchGetItem': 1,
    });
  });

  it('webhook events of one type or one resource: one query of one index partition, and their records in one read', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { lookup: true } }));
    await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    const page = async (query: string) => {
      let body: any;
      const calls = await callsOf('webhookEventsList', async () => (body = await ok(s.admin('GET', `/webhook-events?${query}`), 200)));
      expect(body.items.length, query).toBeGreaterThan(0);
      return calls;
    };
    const lookup = { 'DynamoDB.Query': 1, 'DynamoDB.BatchGetItem': 1 };
    await waitFor('the event to be recorded', async () =>
      (await ok(s.admin('GET', `/webhook-events?resourceId=${intent.id}`), 200)).items.length ? true : undefined,
    );
    expect(await page('type=payment_intent.created')).toEqual(lookup);
    // By resource, until 2026-12-31: its ByResource partition and the lookup items of records written
    // before that index (lib/webhooks/store.ts, LEGACY), two queries at once; then one, as by type.
    const byResource = { 'DynamoDB.Query': 2, 'DynamoDB.BatchGetItem': 1 };
    expect(await page(`resourceId=${intent.id}`)).toEqual(byResource);
    expect(await page(`resourceId=${intent.id}&type=payment_intent.created&status=delivered`)).toEqual(byResource);
    // Delivered records are in no ByStatus shard: every type's ByLookup partition, then the records.
    expect(await page('status=delivered')).toEqual({ 'DynamoDB.Query': webhookEventNames.length, 'DynamoDB.BatchGetItem': 1 });
  });

  // A lone write, not a transaction, which would cost twice (lib/platform/tx.ts writeAlone).
  it('a webhook delivered at the first attempt costs one read and one lone write: its record', async () => {
    const settled = async () => {
      const a = s.stats().webhooksDeliver?.invocations;
      await new Promise((r) => setTimeout(r, 300));
      return a === s.stats().webhooksDeliver?.invocations ? true : undefined;
    };
    await waitFor('earlier deliveries to finish', settled);
    const before = s.stats().webhooksDeliver;
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { webhook: true } }));
    await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    await waitFor('the sender to return', settled);
    const after = s.stats().webhooksDeliver;
    const delta = (k: string) => (after.calls[k] ?? 0) - (before.calls[k] ?? 0);
    const deliveries = after.invocations - before.invocations;
    expect(deliveries).toBeGreaterThanOrEqual(1);
    expect(delta('DynamoDB.GetItem')).toBe(deliveries);
    expect(delta('DynamoDB.PutItem')).toBe(deliveries); // found by its resource through an index, with nothing beside it
    expect(delta('DynamoDB.TransactWriteItems')).toBe(0);
  });
});
