import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../harness/stack';
import { createFlow, ledger, ok, paymentIn, startPaymentsStack, sum, type World } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// Payments on the stack: one payment through the Admin API, the payments queue's worker and the
// webhooks; the Admin API's validation; metadata and rates as DynamoDB must hold them; liquidity on
// the wire. Payments' rules (currencies, quotes' amounts and refusals, funding, cancelling, racing
// fundings) are tested in memory: test/unit/services/payments.test.ts.

let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack());
});
afterAll(() => stop());

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
});

describe('quotes and payments refused', () => {
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
