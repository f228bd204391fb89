import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TestStack } from '../harness/stack';
import { createFlow, ledger, ok, paymentIn, startPaymentsStack, sum, units, type World } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack());
});
afterAll(() => stop());
afterEach(() => vi.useRealTimers());

describe('the basic payment flow', () => {
  it('USD to USD: intent, quote, payment, fund, completed; the intent completes', async () => {
    const { intent, quote, payment } = await createFlow(s, w.alice, w.bob, { value: '1000', assetCode: 'USD' });
    expect(intent).toMatchObject({
      walletAddress: w.bob,
      state: 'pending',
      incomingAmount: { value: '1000', assetCode: 'USD', assetScale: 2 },
      receivedAmount: { value: '0' },
    });
    expect(quote).toMatchObject({
      walletAddress: w.alice,
      receiver: `${s.openPaymentsUrl}/incoming-payments/${intent.id}`,
      debitAmount: { value: '1000', assetCode: 'USD' },
      receiveAmount: { value: '1000', assetCode: 'USD' },
      estimatedExchangeRate: 1,
    });
    expect(payment).toMatchObject({ walletAddress: w.alice, quoteId: quote.id, state: 'funding', sentAmount: { value: '0' }, debitAmount: quote.debitAmount });
    await events.waitForEvent('payment.created', (d) => d.id === payment.id);

    const funded = await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(funded.state).toBe('sending');
    const done = await paymentIn(s, payment.id, ['completed']);
    expect(done.sentAmount).toEqual({ value: '1000', assetCode: 'USD', assetScale: 2 });
    const received = (await s.admin('GET', `/payment-intents/${intent.id}`)).body;
    expect(received).toMatchObject({ state: 'completed', receivedAmount: { value: '1000', assetCode: 'USD', assetScale: 2 } });

    const completed = await events.waitForEvent('payment.completed', (d) => d.id === payment.id);
    expect(completed.data.state).toBe('completed');
    await events.waitForEvent('payment_intent.completed', (d) => d.id === intent.id);
    // Webhooks are delivered concurrently, so their order is not promised; each arrives once.
    expect(events.typesOf(intent.id)).toEqual(['payment_intent.completed', 'payment_intent.created']);
    expect(events.typesOf(payment.id)).toEqual(['payment.completed', 'payment.created', 'payment.funded']);

    // The FSP settles what the intent received.
    const withdrawn = await ok(s.admin('POST', `/payment-intents/${intent.id}/withdraw`), 200);
    expect(withdrawn.withdrawnAmount).toEqual({ value: '1000', assetCode: 'USD', assetScale: 2 });
    expect(sum(await ledger(s))).toBe(0n);
  });

  it('USD to EUR: converts through both liquidity accounts at the pushed rate', async () => {
    const before = await ledger(s);
    const { quote, payment, intent } = await createFlow(s, w.alice, w.carlos, { value: '900', assetCode: 'EUR' });
    expect(quote).toMatchObject({
      debitAmount: { value: '1000', assetCode: 'USD' },
      receiveAmount: { value: '900', assetCode: 'EUR' },
      estimatedExchangeRate: 0.9,
    });
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await paymentIn(s, payment.id, ['completed']);
    const after = await ledger(s);
    const delta = (acct: string) => (after.get(acct) ?? 0n) - (before.get(acct) ?? 0n);
    expect(delta(`liquidity:${w.usd.id}`)).toBe(units(1000));
    expect(delta(`liquidity:${w.eur.id}`)).toBe(-units(900));
    expect(delta(`intent:${intent.id}`)).toBe(units(900));
    expect(delta(`settlement:${w.usd.id}`)).toBe(-units(1000));
    expect(sum(after)).toBe(0n);
    expect((await s.admin('GET', `/payment-intents/${intent.id}`)).body.state).toBe('completed');
  });

  it('a quote for a debit amount rounds the receive amount down', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.carlos }));
    const quote = await ok(
      s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, debitAmount: { value: '333', assetCode: 'USD', assetScale: 2 } }),
    );
    expect(quote.receiveAmount.value).toBe('299'); // 2.997 EUR, rounded down
    const partial = await ok(
      s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, receiveAmount: { value: '100', assetCode: 'EUR', assetScale: 2 } }),
    );
    expect(partial.debitAmount.value).toBe('112'); // 1.1111 USD, rounded up
  });

  it('a partly paid intent is processing, then completes with the rest', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '500', assetCode: 'USD', assetScale: 2 } }));
    const q1 = await ok(
      s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, receiveAmount: { value: '200', assetCode: 'USD', assetScale: 2 } }),
    );
    const p1 = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: q1.id }));
    await ok(s.admin('POST', `/payments/${p1.id}/fund`), 200);
    await paymentIn(s, p1.id, ['completed']);
    expect((await s.admin('GET', `/payment-intents/${intent.id}`)).body).toMatchObject({ state: 'processing', receivedAmount: { value: '200' } });
    const q2 = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.receiver ?? intent.id }));
    expect(q2.receiveAmount.value).toBe('300'); // the remaining amount
    const tooMuch = await s.admin('POST', '/quotes', {
      walletAddress: w.alice,
      receiver: intent.id,
      receiveAmount: { value: '301', assetCode: 'USD', assetScale: 2 },
    });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.code).toBe('amount_exceeds_remaining');
  });
});

describe('quotes and payments refused', () => {
  it('a cross-currency quote with no rate is 422 rate_unavailable', async () => {
    await s.admin('POST', '/assets', { code: 'GBP', scale: 2 });
    const gbpWallet = (await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/gwen`, assetCode: 'GBP' })).body.address;
    const intent = await ok(
      s.admin('POST', '/payment-intents', { walletAddress: gbpWallet, incomingAmount: { value: '100', assetCode: 'GBP', assetScale: 2 } }),
    );
    const res = await s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'rate_unavailable', detail: expect.stringContaining('USD→GBP') });
  });

  it('an expired quote is 422 quote_expired', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
    const quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id }));
    expect(Date.parse(quote.expiresAt) - Date.parse(quote.createdAt)).toBe(300_000);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(quote.expiresAt) + 1000);
    const res = await s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('quote_expired');
  });

  it('a used quote is 409; another wallet cannot use it (422)', async () => {
    const { quote } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    const again = await s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id, metadata: { again: true } });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('quote_used');
    const other = await ok(
      s.admin('POST', '/quotes', {
        walletAddress: w.alice,
        receiver: (await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob }))).id,
        debitAmount: { value: '5', assetCode: 'USD', assetScale: 2 },
      }),
    );
    const stolen = await s.admin('POST', '/payments', { walletAddress: w.bob, quoteId: other.id });
    expect(stolen.status).toBe(422);
    expect(stolen.body.code).toBe('quote_wallet_mismatch');
  });

  it("the sender's wallet address matches its quote in any letter case", async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata: { case: true } }));
    const quote = await ok(
      s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, debitAmount: { value: '7', assetCode: 'USD', assetScale: 2 } }),
    );
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: `${w.alice.toUpperCase()}/`, quoteId: quote.id }));
    expect(payment.walletAddress).toBe(w.alice);
  });

  it('funding twice is 409; cancel works only before funding', async () => {
    const { payment } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    const twice = await s.admin('POST', `/payments/${payment.id}/fund`);
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe('invalid_state');
    expect((await s.admin('POST', `/payments/${payment.id}/cancel`)).status).toBe(409);
    await paymentIn(s, payment.id, ['completed']);

    const second = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    const cancelled = await ok(s.admin('POST', `/payments/${second.payment.id}/cancel`), 200);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled).not.toHaveProperty('cancelReason'); // the FSP's own cancel gives none
    expect((await s.admin('POST', `/payments/${second.payment.id}/fund`)).status).toBe(409);
    expect((await events.waitForEvent('payment.cancelled', (d) => d.id === second.payment.id)).data).not.toHaveProperty('cancelReason');
  });

  it('racing fundings of one payment fund it once', async () => {
    const { payment, intent } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
    // Two signatures, as two clients would make them (the same path and body, another t).
    const sigs = [s.sign('POST', `/payments/${payment.id}/fund`), s.sign('POST', `/payments/${payment.id}/fund`)];
    const results = await Promise.all(sigs.map((signature) => s.send('POST', `/payments/${payment.id}/fund`, { headers: { signature } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    await paymentIn(s, payment.id, ['completed']);
    expect((await ledger(s)).get(`intent:${intent.id}`)).toBe(units(100));
    // The refused funding's transaction failed, so it published nothing.
    await events.waitForEvent('payment.completed', (d) => d.id === payment.id);
    expect(events.seen.filter((e) => e.type === 'payment.funded' && e.data.id === payment.id)).toHaveLength(1);
  });

  it('refuses bad input with 400 and domain errors with 422', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob }));
    const both = await s.admin('POST', '/quotes', {
      walletAddress: w.alice,
      receiver: intent.id,
      debitAmount: { value: '1', assetCode: 'USD', assetScale: 2 },
      receiveAmount: { value: '1', assetCode: 'USD', assetScale: 2 },
    });
    expect(both.status).toBe(400);
    expect((await s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id })).body.code).toBe('amount_required');
    expect((await s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: 'nonsense' })).status).toBe(400);
    expect((await s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: '3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c' })).body.code).toBe(
      'receiver_not_found',
    );
    const wrongAsset = await s.admin('POST', '/quotes', {
      walletAddress: w.alice,
      receiver: intent.id,
      debitAmount: { value: '1', assetCode: 'EUR', assetScale: 2 },
    });
    expect(wrongAsset.body.code).toBe('asset_mismatch');
    for (const body of [
      { walletAddress: w.bob, incomingAmount: { value: '-1', assetCode: 'USD', assetScale: 2 } },
      { walletAddress: w.bob, incomingAmount: { value: '1.5', assetCode: 'USD', assetScale: 2 } },
      { walletAddress: w.bob, incomingAmount: { value: 100, assetCode: 'USD', assetScale: 2 } },
      { walletAddress: w.bob, incomingAmount: { value: '0', assetCode: 'USD', assetScale: 2 } },
      { walletAddress: w.bob, expiresAt: '2001-01-01T00:00:00Z' },
      { walletAddress: w.bob, expiresAt: new Date(Date.now() + 31 * 86400_000).toISOString() },
      { walletAddress: w.bob, colour: 'red' },
    ]) {
      expect((await s.admin('POST', '/payment-intents', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await s.admin('POST', '/payment-intents', { walletAddress: `${s.openPaymentsUrl}/nobody` })).body.code).toBe('wallet_address_not_found');
    expect((await s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: 'x' })).status).toBe(400);
    expect((await s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: '3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c' })).body.code).toBe('quote_not_found');
    expect((await s.admin('GET', '/payments/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c')).status).toBe(404);
  });
});

describe('data the FSP sends is kept as sent', () => {
  it('metadata with any JSON round-trips, including keys and numbers DynamoDB could not hold', async () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 40; i++) deep = { d: deep };
    // biome-ignore lint/correctness/noPrecisionLoss: a number JSON carries that a double cannot hold exactly
    const metadata = { '': 1, tiny: 1e-300, big: 12345678901234567, deep, list: [null, true, 'x'] };
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, metadata }));
    expect(intent.metadata).toEqual(JSON.parse(JSON.stringify(metadata)));
    expect((await s.admin('GET', `/payment-intents/${intent.id}`)).body.metadata).toEqual(intent.metadata);
    await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
  });

  it('a pushed rate outside 1e-12 to 1e12 is 400', async () => {
    for (const rate of [1e16, 1e-300]) {
      expect((await s.admin('POST', '/rates', { sourceAssetCode: 'USD', destinationAssetCode: 'JPY', rate })).status).toBe(400);
    }
  });
});

describe('liquidity', () => {
  it('deposits and withdrawals change what GET /assets/{id} shows; overdrawing is 422 and changes nothing', async () => {
    const jpy = await ok(s.admin('POST', '/assets', { code: 'JPY', scale: 0 }));
    expect((await ok(s.admin('POST', `/assets/${jpy.id}/liquidity`, { amount: '5000' }), 200)).liquidity).toEqual({
      value: '5000',
      assetCode: 'JPY',
      assetScale: 0,
    });
    expect((await ok(s.admin('POST', `/assets/${jpy.id}/liquidity-withdrawals`, { amount: '1200' }), 200)).liquidity.value).toBe('3800');
    const over = await s.admin('POST', `/assets/${jpy.id}/liquidity-withdrawals`, { amount: '3801' });
    expect(over.status).toBe(422);
    expect(over.body.code).toBe('insufficient_liquidity');
    expect((await s.admin('GET', `/assets/${jpy.id}`)).body.liquidity.value).toBe('3800');
    for (const amount of ['0', '-5', '1.5', 12]) expect((await s.admin('POST', `/assets/${jpy.id}/liquidity`, { amount })).status).toBe(400);
  });
});
