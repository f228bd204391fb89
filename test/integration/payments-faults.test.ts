import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestStack } from '../harness/stack';
import { createFlow, ledger, ledgerItems, ok, paymentIn, queueDepth, startPaymentsStack, sum, units, type World, waitFor } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack({ eurLiquidity: '100000', eurThreshold: '60000' }));
});
afterAll(() => stop());
afterEach(() => {
  delete process.env.PAYMENT_FAULTS;
  vi.useRealTimers();
});

const queueEmpty = () => waitFor('the payments queue to empty', async () => ((await queueDepth(s, 'PaymentsQueue')) === 0 ? true : undefined));

describe('faults lose nothing and never double-spend', () => {
  it('the same SQS message delivered several times makes one transfer', async () => {
    const { payment, intent } = await createFlow(s, w.alice, w.bob, { value: '700', assetCode: 'USD' });
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    const body = JSON.stringify({ paymentId: payment.id, intentId: intent.id });
    await Promise.all([1, 2, 3].map(() => s.sqs.send(new SendMessageCommand({ QueueUrl: s.refs.PaymentsQueue.ref, MessageBody: body }))));
    await paymentIn(s, payment.id, ['completed']);
    await queueEmpty();
    const after = await ledger(s);
    expect(after.get(`intent:${intent.id}`)).toBe(units(700));
    expect(after.get(`payment:${payment.id}`)).toBe(0n);
    expect(sum(after)).toBe(0n);
    await events.waitForEvent('payment.completed', (d) => d.id === payment.id);
    expect(events.seen.filter((e) => e.type === 'payment.completed' && e.data.id === payment.id)).toHaveLength(1);
  });

  it('a crash right after the worker writes recovers with exactly one credit, and each event goes out once', async () => {
    const { payment, intent } = await createFlow(s, w.alice, w.carlos, { value: '450', assetCode: 'EUR' });
    process.env.PAYMENT_FAULTS = 'payment-worker:after-write';
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await paymentIn(s, payment.id, ['completed']);
    await queueEmpty(); // the crashed delivery's message came back, found the work done, and was removed
    delete process.env.PAYMENT_FAULTS;
    const after = await ledger(s);
    expect(after.get(`intent:${intent.id}`)).toBe(units(450));
    expect(sum(after)).toBe(0n);
    // The events committed with the write; the crash came after, so they went out all the same.
    await events.waitForEvent('payment.completed', (d) => d.id === payment.id);
    await events.waitForEvent('payment_intent.completed', (d) => d.id === intent.id);
    expect(events.typesOf(payment.id)).toEqual(['payment.completed', 'payment.created', 'payment.funded']);
  });

  it('a message with only the payment id (as written before messages carried the intent) still delivers a local payment, once', async () => {
    const { payment, intent } = await createFlow(s, w.alice, w.bob, { value: '300', assetCode: 'USD' });
    await s.streams.stop(); // the funding's own message waits on the stream
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await s.sqs.send(new SendMessageCommand({ QueueUrl: s.refs.PaymentsQueue.ref, MessageBody: JSON.stringify({ paymentId: payment.id }) }));
    await paymentIn(s, payment.id, ['completed']);
    s.streams.start(); // then the funding's message comes, and finds the work done
    await events.waitForEvent('payment.completed', (d) => d.id === payment.id);
    await queueEmpty();
    expect((await ledger(s)).get(`intent:${intent.id}`)).toBe(units(300));
  });

  it('the stream reader down right after a commit: the event waits on the stream and arrives once when it is back', async () => {
    await s.streams.stop();
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { outage: true } }));
    await new Promise((r) => setTimeout(r, 500));
    expect(events.deliveries.filter((d) => d.event.data.id === intent.id)).toHaveLength(0);
    s.streams.start();
    const created = await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    await new Promise((r) => setTimeout(r, 500));
    expect(events.deliveries.filter((d) => d.event.id === created.id)).toHaveLength(1);
  });

  it('the relay crashes after sending: the stream hands the batch back, and the FSP still gets each event once', async () => {
    const putsBefore = s.stats().outboxRelay?.calls['EventBridge.PutEvents'] ?? 0;
    process.env.PAYMENT_FAULTS = 'outbox-relay:after-send';
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { relayCrash: true } }));
    const created = await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    await waitFor('the relay to send the event again', async () =>
      (s.stats().outboxRelay.calls['EventBridge.PutEvents'] ?? 0) >= putsBefore + 2 ? true : undefined,
    );
    delete process.env.PAYMENT_FAULTS;
    await waitFor('the relay to get past the batch', async () => ((await queueDepth(s, 'WebhookQueue')) === 0 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300));
    expect(events.deliveries.filter((d) => d.event.id === created.id)).toHaveLength(1);
    expect((await s.admin('GET', `/webhook-events/${created.id}`)).body.attempts).toHaveLength(1);
  });

  it('50 concurrent payments into one asset leave every balance exact', async () => {
    const before = await ledger(s);
    const flows = await Promise.all(Array.from({ length: 50 }, () => createFlow(s, w.alice, w.carlos, { value: '9', assetCode: 'EUR' })));
    const fundings = await Promise.all(flows.map((f) => s.admin('POST', `/payments/${f.payment.id}/fund`)));
    expect(fundings.map((r) => r.status)).toEqual(Array(50).fill(200));
    await Promise.all(flows.map((f) => paymentIn(s, f.payment.id, ['completed'], 30_000)));
    const after = await ledger(s);
    const delta = (acct: string) => (after.get(acct) ?? 0n) - (before.get(acct) ?? 0n);
    expect(delta(`liquidity:${w.eur.id}`)).toBe(-units(9 * 50));
    expect(delta(`liquidity:${w.usd.id}`)).toBe(units(10 * 50));
    expect(delta(`settlement:${w.usd.id}`)).toBe(-units(10 * 50));
    for (const f of flows) expect(after.get(`intent:${f.intent.id}`)).toBe(units(9));
    expect(sum(after)).toBe(0n);
    // The fundings spread over the shards of the USD settlement account.
    const shards = [...(await ledgerItems(s)).entries()].filter(([id, balance]) => id.startsWith(`settlement:${w.usd.id}#`) && balance !== 0n);
    expect(shards.length).toBeGreaterThan(4);
  });

  it('crossing the liquidity threshold emits asset.liquidity_low once', async () => {
    // EUR liquidity started at 1000.00 with a 600.00 threshold; the tests above took 4.50 + 4.50 EUR.
    const eur = (await s.admin('GET', `/assets/${w.eur.id}`)).body;
    const take = BigInt(eur.liquidity.value) - 59_990n; // leaves 599.90 EUR
    const { payment } = await createFlow(s, w.alice, w.carlos, { value: take.toString(), assetCode: 'EUR' });
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await paymentIn(s, payment.id, ['completed']);
    const low = await events.waitForEvent('asset.liquidity_low', (d) => d.id === w.eur.id);
    expect(low.data.liquidity).toEqual({ value: '59990', assetCode: 'EUR', assetScale: 2 });
  });
});

describe('permanent failures fail the payment and leave its funds withdrawable', () => {
  it('not enough destination liquidity', async () => {
    const eur = (await s.admin('GET', `/assets/${w.eur.id}`)).body;
    const beyond = (BigInt(eur.liquidity.value) + 100n).toString();
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.carlos }));
    const quote = await ok(
      s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, receiveAmount: { value: beyond, assetCode: 'EUR', assetScale: 2 } }),
    );
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    const failed = await paymentIn(s, payment.id, ['failed']);
    expect(failed.failureReason).toBe('insufficient_liquidity');
    await events.waitForEvent('payment.failed', (d) => d.id === payment.id);
    const withdrawn = await ok(s.admin('POST', `/payments/${payment.id}/withdraw`), 200);
    expect(withdrawn.withdrawnAmount).toEqual(quote.debitAmount);
    expect((await ledger(s)).get(`payment:${payment.id}`)).toBe(0n);
    expect(sum(await ledger(s))).toBe(0n);
  });

  it('the intent expired before the payment was funded: funding is refused, the intent expires', async () => {
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const intent = await ok(
      s.admin('POST', '/payment-intents', { walletAddress: w.bob, expiresAt, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }),
    );
    const quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id }));
    expect(quote.expiresAt).toBe(expiresAt); // a quote never outlives its intent
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(expiresAt) + 1000);
    expect((await s.admin('GET', `/payment-intents/${intent.id}`)).body.state).toBe('expired');
    // Its quote expired with the intent: funding now would send at a rate nobody quoted.
    const late = await s.admin('POST', `/payments/${payment.id}/fund`);
    expect(late.status).toBe(422);
    expect(late.body.code).toBe('quote_expired');
    expect((await ok(s.admin('POST', `/payments/${payment.id}/cancel`), 200)).state).toBe('cancelled');
    // The expirer records the expiry and tells the FSP.
    expect(await s.invoke('paymentIntentsExpire')).toBeGreaterThanOrEqual(1);
    await events.waitForEvent('payment_intent.expired', (d) => d.id === intent.id);
    expect((await s.admin('POST', `/payment-intents/${intent.id}/complete`)).status).toBe(409);
  });

  it('two quotes for the same remaining amount: the second payment fails rather than overpay', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
    const quotes = [
      await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, receiveAmount: { value: '60', assetCode: 'USD', assetScale: 2 } })),
      await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, receiveAmount: { value: '60', assetCode: 'USD', assetScale: 2 } })),
    ];
    const payments = [];
    for (const q of quotes) payments.push(await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: q.id })));
    await ok(s.admin('POST', `/payments/${payments[0].id}/fund`), 200);
    await paymentIn(s, payments[0].id, ['completed']);
    await ok(s.admin('POST', `/payments/${payments[1].id}/fund`), 200);
    expect((await paymentIn(s, payments[1].id, ['failed'])).failureReason).toBe('amount_exceeds_remaining');
    expect((await s.admin('GET', `/payment-intents/${intent.id}`)).body.receivedAmount.value).toBe('60');
    expect((await ok(s.admin('POST', `/payments/${payments[1].id}/withdraw`), 200)).withdrawnAmount.value).toBe('60');
    expect(sum(await ledger(s))).toBe(0n);
  });

  it('payments racing to one intent never overpay it: those that would fail, their funds withdrawable', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
    const amount = { value: '40', assetCode: 'USD', assetScale: 2 };
    const payments = [];
    for (let i = 0; i < 5; i++) {
      const q = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, receiveAmount: amount }));
      payments.push(await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: q.id })));
    }
    await Promise.all(payments.map((p) => ok(s.admin('POST', `/payments/${p.id}/fund`), 200)));
    const done = await Promise.all(payments.map((p) => paymentIn(s, p.id, ['completed', 'failed'], 20_000)));
    expect(done.filter((p) => p.state === 'completed')).toHaveLength(2);
    expect(done.filter((p) => p.state === 'failed').map((p) => p.failureReason)).toEqual(Array(3).fill('amount_exceeds_remaining'));
    expect(await ok(s.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({ state: 'processing', receivedAmount: { value: '80' } });
    for (const p of done.filter((d) => d.state === 'failed')) {
      expect((await ok(s.admin('POST', `/payments/${p.id}/withdraw`), 200)).withdrawnAmount.value).toBe('40');
    }
    const after = await ledger(s);
    expect(after.get(`intent:${intent.id}`)).toBe(units(80));
    expect(sum(after)).toBe(0n);
  });

  it('the intent was completed by the FSP first', async () => {
    const { payment, intent } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    expect((await ok(s.admin('POST', `/payment-intents/${intent.id}/complete`), 200)).state).toBe('completed');
    await events.waitForEvent('payment_intent.completed', (d) => d.id === intent.id);
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect((await paymentIn(s, payment.id, ['failed'])).failureReason).toBe('payment_intent_completed');
    expect((await s.admin('POST', `/payment-intents/${intent.id}/complete`)).status).toBe(409);
  });
});
