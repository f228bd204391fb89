import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { MINUTE_MS, minuteOf, seriesKey } from '../../infra/local/emulators/metrics';
import { type Database, db, useDatabase } from '../../lib/platform/db';
import { METRICS } from '../../lib/platform/metrics';
import { peerBothWays, startOtherNode } from '../harness/node';
import type { TestStack } from '../harness/stack';
import { createFlow, ok, paymentIn, startPaymentsStack, type World, waitFor } from '../harness/world';
import { startRatesServer } from '../servers/rates-server';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// The metrics the functions publish, as the local run collects them: the functions print their
// EMF documents (Powertools Metrics) as on Lambda, and the runtime takes them into its store
// instead of printing them, as CloudWatch takes them out of the function's log.
vi.hoisted(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'false'; // before lib/platform/metrics is loaded
});

const since = minuteOf(Date.now());
const printed: string[] = [];

// The sum of a metric in the PaymentService namespace at exactly `dimensions` (and `service`), so far.
function total(name: string, dimensions: Record<string, string> = {}): number {
  const { store } = s.metrics!;
  store.flush();
  return store.statistic(seriesKey('PaymentService', name, { service: 'payment-service', ...dimensions }), 'Sum', since, Date.now() + MINUTE_MS) ?? 0;
}

// Waits until `name` (at `dimensions`) has grown by `by` since `before`.
const grown = (name: string, before: number, by: number, dimensions?: Record<string, string>) =>
  waitFor(`${name} ${JSON.stringify(dimensions ?? {})} + ${by}`, async () => (total(name, dimensions) >= before + by ? true : undefined));

let s: TestStack;
let w: World;
let events: WebhookReceiver;
let rates: Awaited<ReturnType<typeof startRatesServer>>;
let stop: () => Promise<void>;

beforeAll(async () => {
  const write = process.stdout.write.bind(process.stdout);
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: never[]) => {
    printed.push(String(chunk));
    return write(chunk, ...rest);
  }) as typeof process.stdout.write);
  rates = await startRatesServer();
  ({ s, w, events, stop } = await startPaymentsStack({
    // One retry, a second after the first failure, then the event is parked; every pulled rate is
    // due for a refresh.
    settings: { EXCHANGE_RATES_URL: rates.url, WEBHOOK_RETRY_SCHEDULE_SECS: '1', EXCHANGE_RATES_REFRESH_BEFORE_SECS: '7200' },
  }));
});
afterAll(async () => {
  await stop();
  await rates.stop();
  vi.restoreAllMocks();
});

describe('payments by outcome', () => {
  it('a completed payment counts once as completed, in the PaymentService namespace, and once as received, on the node whose intent it credited', async () => {
    const before = total(METRICS.payments, { outcome: 'completed' });
    const received = total(METRICS.paymentsReceived, { via: 'local' });
    const { payment } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await paymentIn(s, payment.id, ['completed']);
    await grown(METRICS.payments, before, 1, { outcome: 'completed' });
    expect(total(METRICS.payments, { outcome: 'completed' })).toBe(before + 1);
    await grown(METRICS.paymentsReceived, received, 1, { via: 'local' });
    expect(total(METRICS.paymentsReceived, { via: 'local' })).toBe(received + 1);
    // Under its outcome alone (a completed payment has no reason).
    expect(s.metrics!.store.find('PaymentService', METRICS.payments).map((x) => x.dimensions)).toContainEqual({
      service: 'payment-service',
      outcome: 'completed',
    });
  });

  it('a failed payment counts as failed, and under its reason', async () => {
    const failedBefore = total(METRICS.payments, { outcome: 'failed' });
    const reasonBefore = total(METRICS.payments, { reason: 'payment_intent_completed' });
    const { payment, intent } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    await ok(s.admin('POST', `/payment-intents/${intent.id}/complete`), 200);
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await paymentIn(s, payment.id, ['failed']);
    await grown(METRICS.payments, failedBefore, 1, { outcome: 'failed' });
    await grown(METRICS.payments, reasonBefore, 1, { reason: 'payment_intent_completed' });
    expect(total(METRICS.payments, { outcome: 'failed' })).toBe(failedBefore + 1);
  });

  it('a cancelled payment counts as cancelled', async () => {
    const before = total(METRICS.payments, { outcome: 'cancelled' });
    const { payment } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    await ok(s.admin('POST', `/payments/${payment.id}/cancel`), 200);
    await grown(METRICS.payments, before, 1, { outcome: 'cancelled' });
  });
});

describe('payments received over Interledger', () => {
  it('count once on the node that receives, however many packets the payment took', async () => {
    const b = await startOtherNode({ ILP_ADDRESS: 'test.node-b' });
    try {
      await ok(b.admin('POST', '/assets', { code: 'USD', scale: 2 }));
      const payer = (await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/payer`, assetCode: 'USD' }))).address;
      const { peerOfA: bOnThisNode, peerOfB: thisNodeOnB } = await peerBothWays(s, b);
      await ok(s.admin('POST', `/peers/${bOnThisNode.id}/liquidity`, { amount: '1000000' }), 200);
      await ok(b.admin('PATCH', `/peers/${thisNodeOnB.id}`, { maxPacketAmount: '300' }), 200); // 10.00 in 4 packets or more
      const received = total(METRICS.paymentsReceived, { via: 'interledger' });
      const intent = await ok(
        s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '1000', assetCode: 'USD', assetScale: 2 } }),
      );
      const quote = await ok(b.admin('POST', '/quotes', { walletAddress: payer, receiver: intent.url }));
      const payment = await ok(b.admin('POST', '/payments', { walletAddress: payer, quoteId: quote.id }));
      await ok(b.admin('POST', `/payments/${payment.id}/fund`), 200);
      await paymentIn(b, payment.id, ['completed']);
      const packets = (await ok(s.admin('GET', `/ledger/transfers?account=intent:${intent.id}`), 200)).items.filter(
        (t: { kind: string }) => t.kind === 'packet',
      );
      expect(packets.length).toBeGreaterThanOrEqual(4);
      await grown(METRICS.paymentsReceived, received, 1, { via: 'interledger' });
      expect(total(METRICS.paymentsReceived, { via: 'interledger' })).toBe(received + 1);
    } finally {
      await b.stop();
    }
  });
});

describe('webhooks', () => {
  it('counts each attempt the FSP refuses, and the event parked after its last retry', async () => {
    const attempts = total(METRICS.webhookAttempts);
    const failed = total(METRICS.webhookAttemptsFailed);
    const parked = total(METRICS.webhookEventsParked);
    events.respondWith((d) => (d.event.data.metadata?.refuse ? 500 : 204));
    try {
      const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { refuse: true } }));
      await grown(METRICS.webhookEventsParked, parked, 1);
      expect(events.deliveries.filter((d) => d.event.data.id === intent.id).map((d) => d.answered)).toEqual([500, 500]);
      expect(total(METRICS.webhookAttemptsFailed)).toBe(failed + 2);
      expect(total(METRICS.webhookAttempts)).toBeGreaterThanOrEqual(attempts + 2);
    } finally {
      events.respondWith(() => 204);
    }
  });

  it('counts a delivered attempt, not as failed', async () => {
    const attempts = total(METRICS.webhookAttempts);
    const failed = total(METRICS.webhookAttemptsFailed);
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob }));
    await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    await grown(METRICS.webhookAttempts, attempts, 1);
    expect(total(METRICS.webhookAttemptsFailed)).toBe(failed);
  });
});

describe('rate pulls', () => {
  it("counts each pull of the FSP's rates endpoint, and each that fails", async () => {
    rates.rates[''].GBP = { USD: 1.25 };
    expect((await s.admin('GET', '/rates?sourceAssetCode=GBP&destinationAssetCode=USD')).body).toMatchObject({ rate: 1.25, origin: 'pulled' });
    const pulls = total(METRICS.ratePulls);
    const failures = total(METRICS.ratePullsFailed);
    await s.invoke('ratesRefresh'); // the refresher, whose invocation publishes its metrics
    expect(total(METRICS.ratePulls)).toBeGreaterThan(pulls);
    expect(total(METRICS.ratePullsFailed)).toBe(failures);

    rates.respondWith((_req, res) => {
      res.writeHead(503);
      res.end();
    });
    try {
      const pullsBefore = total(METRICS.ratePulls);
      expect(await s.invoke('ratesRefresh')).toMatchObject({ failed: 1 });
      expect(total(METRICS.ratePulls)).toBeGreaterThan(pullsBefore);
      expect(total(METRICS.ratePullsFailed)).toBe(failures + 1);
    } finally {
      rates.reset();
    }
  });
});

describe('ledger conflicts', () => {
  it("counts a transaction cancelled for a conflict and retried, published as the worker's invocation ends", async () => {
    const conflicts = total(METRICS.ledgerConflictsRetried);
    const completed = total(METRICS.payments, { outcome: 'completed' });
    const { payment, intent } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    // The outbox relay waits, so that the test itself gives the worker the message that funding
    // queues: the worker's metrics must be out by the time that invocation returns.
    await s.streams.stop();
    // DynamoDB Local runs transactions one at a time, so the conflict that a concurrent writer
    // would cause on AWS is made here: the worker's first delivery transaction is cancelled.
    let injected = 0;
    const real = db();
    const conflict = ((command: { input: object }, ...rest: unknown[]) => {
      const input = JSON.stringify(command.input, (_k, v) => (typeof v === 'bigint' ? `${v}` : v));
      if (!injected && 'TransactItems' in command.input && input.includes(`deliver:${payment.id}`)) {
        injected++;
        return Promise.reject(
          new TransactionCanceledException({
            message: 'Transaction cancelled [TransactionConflict]',
            $metadata: {},
            CancellationReasons: [{ Code: 'TransactionConflict' }],
          }),
        );
      }
      return (real.send as (...args: unknown[]) => Promise<unknown>)(command, ...rest);
    }) as Database['send'];
    useDatabase({ send: conflict });
    try {
      await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
      const body = JSON.stringify({ paymentId: payment.id, intentId: intent.id });
      const res = await s.invoke('paymentsWorker', { Records: [{ messageId: 'm1', receiptHandle: 'r1', body, attributes: { ApproximateReceiveCount: '1' } }] });
      expect(res).toEqual({ batchItemFailures: [] });
      expect(injected).toBe(1);
      expect(total(METRICS.ledgerConflictsRetried)).toBe(conflicts + 1);
      expect(total(METRICS.payments, { outcome: 'completed' })).toBe(completed + 1);
    } finally {
      useDatabase(undefined);
      s.streams.start();
    }
    expect((await paymentIn(s, payment.id, ['completed'])).state).toBe('completed');
  });
});

// Last: after every test above has had its metrics published.
it('no EMF document reaches stdout: the runtime took every one', () => {
  expect(total(METRICS.payments, { outcome: 'completed' })).toBeGreaterThan(0);
  expect(printed.filter((line) => line.includes('"_aws"'))).toEqual([]);
});
