import { generateKeyPairSync } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../harness/stack';
import { ledger, ok, paymentIn, startPaymentsStack, units, type World } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// Issue 31, items 1 and 5: fees on both sides, set with PATCH /assets/{id}, through the Admin API
// and the official Open Payments client. The fees' rules (rounding, a debitAmount's fee, a fee
// changed after a quote, a failed payment's, the receiving fee across currencies and over several
// payments, an intent closed short, changes made at once) are test/unit/services/fees.test.ts's, in memory. A sending fee is added to the sender's debit, in the debit
// asset; a receiving fee is taken from the intent's credit, in its asset; both are booked to the
// asset's fee account in the transaction that moves the payment, and the ledger check counts them.
let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack());
});
afterAll(() => stop());

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const setFees = (assetId: string, fees: Record<string, unknown>) => ok(s.admin('PATCH', `/assets/${assetId}`, fees), 200);
const noFees = { sendingFee: null, receivingFee: null };
const balanceOf = async (account: string) => (await ledger(s)).get(account) ?? 0n;
const checkLedger = async () => {
  const check = await ok(s.admin('GET', '/ledger/check'), 200);
  expect(check).toMatchObject({ balanced: true, unattributed: [] });
  return check;
};

async function pay(from: string, to: string, incoming: { value: string; assetCode: string; assetScale: number }, quoteExtra = {}) {
  const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: incoming }));
  const quote = await ok(s.admin('POST', '/quotes', { walletAddress: from, receiver: intent.id, ...quoteExtra }));
  const payment = await ok(s.admin('POST', '/payments', { walletAddress: from, quoteId: quote.id }));
  await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
  return { intent, quote, payment: await paymentIn(s, payment.id, ['completed', 'failed']) };
}

describe('PATCH /assets/{id}', () => {
  it('sets, shows and clears the fees and the threshold; each change is an asset.updated webhook', async () => {
    const changed = await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 50 }, liquidityThreshold: '700' });
    expect(changed).toMatchObject({ id: w.usd.id, code: 'USD', sendingFee: { fixed: '10', basisPoints: 50 }, liquidityThreshold: '700' });
    expect(changed.receivingFee).toBeUndefined();
    expect(await ok(s.admin('GET', `/assets/${w.usd.id}`), 200)).toMatchObject({ sendingFee: { fixed: '10', basisPoints: 50 }, liquidityThreshold: '700' });
    const listed = (await ok(s.admin('GET', '/assets?limit=100'), 200)).items.find((a: { id: string }) => a.id === w.usd.id);
    expect(listed).toMatchObject({ sendingFee: { fixed: '10', basisPoints: 50 } });
    await events.waitForEvent('asset.updated', (d) => d.id === w.usd.id && d.liquidityThreshold === '700');

    // Only what the body names changes; null clears.
    expect(await setFees(w.usd.id, { receivingFee: { fixed: '0', basisPoints: 10000 } })).toMatchObject({
      sendingFee: { fixed: '10', basisPoints: 50 },
      receivingFee: { fixed: '0', basisPoints: 10000 },
      liquidityThreshold: '700',
    });
    const cleared = await setFees(w.usd.id, { ...noFees, liquidityThreshold: null });
    expect(cleared).toEqual({ id: w.usd.id, code: 'USD', scale: 2, createdAt: expect.any(String) });
    expect(await ok(s.admin('GET', `/assets/${w.usd.id}`), 200)).not.toHaveProperty('sendingFee');
  });

  it('refuses bad input with a 400 problem that names the field, and changes nothing; an unknown asset is 404', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '5', basisPoints: 1 } });
    const bad: Array<[unknown, string]> = [
      [{ sendingFee: { fixed: '1.5', basisPoints: 0 } }, 'sendingFee.fixed'],
      [{ sendingFee: { fixed: '-1', basisPoints: 0 } }, 'sendingFee.fixed'],
      [{ sendingFee: { fixed: 10, basisPoints: 0 } }, 'sendingFee.fixed'],
      [{ sendingFee: { fixed: '10', basisPoints: 10001 } }, 'sendingFee.basisPoints'],
      [{ receivingFee: { fixed: '10', basisPoints: -1 } }, 'receivingFee.basisPoints'],
      [{ receivingFee: { fixed: '10', basisPoints: 2.5 } }, 'receivingFee.basisPoints'],
      [{ receivingFee: { fixed: '10' } }, 'receivingFee.basisPoints'],
      [{ receivingFee: { fixed: '10', basisPoints: 1, extra: 1 } }, 'receivingFee'],
      [{ sendingFee: { fixed: '1'.padEnd(38, '0'), basisPoints: 1 } }, 'sendingFee.fixed'], // past the ledger's 38 digits at scale 2
      [{ code: 'EUR' }, 'code'],
      [{}, ''],
    ];
    for (const [body, field] of bad) {
      const res = await s.admin('PATCH', `/assets/${w.usd.id}`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.headers.get('content-type')).toContain('application/problem+json');
      expect(res.body.errors.map((e: { field: string }) => e.field).join(','), JSON.stringify(res.body)).toContain(field);
    }
    expect(await ok(s.admin('GET', `/assets/${w.usd.id}`), 200)).toMatchObject({ sendingFee: { fixed: '5', basisPoints: 1 } });
    const unknown = await s.admin('PATCH', '/assets/00000000-0000-4000-8000-000000000000', { sendingFee: null });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'asset_not_found' } });
    await setFees(w.usd.id, noFees);
  });
});

describe('a sending fee', () => {
  it('on a 1.00 USD payment, 0.10 + 500 bps debits 1.15 and books 0.15 to the fee account; the payment and its webhooks carry it', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 500 } });
    const feesBefore = await balanceOf(`fee:${w.usd.id}`);
    const settlementBefore = await balanceOf(`settlement:${w.usd.id}`);
    const { intent, quote, payment } = await pay(w.alice, w.bob, usd('100'));
    expect(quote).toMatchObject({ debitAmount: usd('115'), receiveAmount: usd('100'), fee: usd('15'), sendingFee: { fixed: '10', basisPoints: 500 } });
    expect(payment).toMatchObject({ state: 'completed', debitAmount: usd('115'), fee: usd('15'), sentAmount: usd('100') });
    expect(await ok(s.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({
      state: 'completed',
      paidAmount: usd('100'),
      receivedAmount: usd('100'),
      receivingFee: usd('0'),
    });
    expect((await balanceOf(`fee:${w.usd.id}`)) - feesBefore).toBe(units(15));
    expect(settlementBefore - (await balanceOf(`settlement:${w.usd.id}`))).toBe(units(115));
    expect(await balanceOf(`intent:${intent.id}`)).toBe(units(100));
    expect(await balanceOf(`payment:${payment.id}`)).toBe(0n);
    for (const type of ['payment.created', 'payment.funded', 'payment.completed']) {
      expect((await events.waitForEvent(type, (d) => d.id === payment.id)).data.fee).toEqual(usd('15'));
    }
    await checkLedger();
  });
});

describe('over Open Payments', () => {
  it('a quote’s debitAmount includes the sending fee, and an incoming payment’s receivedAmount is what was paid', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 500 }, receivingFee: { fixed: '1', basisPoints: 0 } });
    const aliceRecord = await ok(s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(w.alice)}`), 200);
    const { privateKey } = generateKeyPairSync('ed25519');
    await ok(s.admin('POST', `/wallet-addresses/${aliceRecord.id}/keys`, generateJwk({ privateKey, keyId: 'fees-key' })));
    const client = await createAuthenticatedClient({ walletAddressUrl: w.alice, privateKey, keyId: 'fees-key', validateResponses: true });
    const sender = await client.walletAddress.get({ url: w.alice });
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: usd('100') }));
    const grant = await client.grant.request({ url: sender.authServer }, { access_token: { access: [{ type: 'quote', actions: ['create', 'read'] }] } });
    if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a quote grant at once');
    const quote = await client.quote.create(
      { url: sender.resourceServer, accessToken: grant.access_token.value },
      { walletAddress: sender.id, receiver: intent.url, method: 'ilp' },
    );
    expect(quote).toMatchObject({ debitAmount: usd('115'), receiveAmount: usd('100') });
    const quoteId = quote.id.split('/').pop();
    expect(await ok(s.admin('GET', `/quotes/${quoteId}`), 200)).toMatchObject({ fee: usd('15') });
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId }));
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    await paymentIn(s, payment.id, ['completed']);

    const incomingGrant = await client.grant.request(
      { url: sender.authServer },
      { access_token: { access: [{ type: 'incoming-payment', actions: ['read-all'] as never, identifier: w.bob }] } },
    );
    if (!isFinalizedGrantWithAccessToken(incomingGrant)) throw new Error('expected an incoming-payment grant at once');
    const read = await client.incomingPayment.get({ url: intent.url, accessToken: incomingGrant.access_token.value });
    expect(read).toMatchObject({ completed: true, incomingAmount: usd('100'), receivedAmount: usd('100') });
    expect(await ok(s.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({ receivedAmount: usd('99'), receivingFee: usd('1') });
    await setFees(w.usd.id, noFees);
  });
});
