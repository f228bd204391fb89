import { generateKeyPairSync } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../harness/stack';
import { ledger, ok, paymentIn, startPaymentsStack, units, type World } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// Issue 31, items 1 and 5: fees on both sides, set with PATCH /assets/{id}, through the Admin API
// and the official Open Payments client. A sending fee is added to the sender's debit, in the debit
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
const eur = (value: string) => ({ value, assetCode: 'EUR', assetScale: 2 });
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

  it('serializes changes made at once: every field each names is kept', async () => {
    const changes = [
      { sendingFee: { fixed: '1', basisPoints: 1 } },
      { receivingFee: { fixed: '2', basisPoints: 2 } },
      { liquidityThreshold: '3' },
      { sendingFee: { fixed: '1', basisPoints: 1 }, receivingFee: { fixed: '2', basisPoints: 2 } },
    ];
    const answers = await Promise.all(changes.map((c) => s.admin('PATCH', `/assets/${w.eur.id}`, c)));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    expect(await ok(s.admin('GET', `/assets/${w.eur.id}`), 200)).toMatchObject({
      sendingFee: { fixed: '1', basisPoints: 1 },
      receivingFee: { fixed: '2', basisPoints: 2 },
      liquidityThreshold: '3',
    });
    await setFees(w.eur.id, { ...noFees, liquidityThreshold: null });
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

  it('with 0.10 + 50 bps on 1.00 USD debits 1.11: the half cent is rounded up, in the FSP’s favour', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 50 } });
    const { quote, payment } = await pay(w.alice, w.bob, usd('100'));
    expect(quote).toMatchObject({ debitAmount: usd('111'), fee: usd('11') });
    expect(payment).toMatchObject({ state: 'completed', sentAmount: usd('100') });
  });

  it('given a debitAmount, is taken out of it: what is left is sent', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 50 } });
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob }));
    const quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, debitAmount: usd('111') }));
    expect(quote).toMatchObject({ debitAmount: usd('111'), receiveAmount: usd('100'), fee: usd('11') });
    // Less than the fixed part leaves nothing to send.
    const tooSmall = await s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, debitAmount: usd('10') });
    expect(tooSmall).toMatchObject({ status: 422, body: { code: 'amount_too_small' } });
  });

  it('changed after a quote was made leaves that quote and its payment as they were; a new quote has the new fee', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 500 } });
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: usd('200') }));
    const before = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id }));
    expect(before).toMatchObject({ debitAmount: usd('220'), fee: usd('20') });
    await setFees(w.usd.id, { sendingFee: { fixed: '0', basisPoints: 10000 } });
    const after = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id }));
    expect(after).toMatchObject({ debitAmount: usd('400'), fee: usd('200'), sendingFee: { fixed: '0', basisPoints: 10000 } });
    expect(await ok(s.admin('GET', `/quotes/${before.id}`), 200)).toMatchObject({
      debitAmount: usd('220'),
      fee: usd('20'),
      sendingFee: { fixed: '10', basisPoints: 500 },
    });
    const feesBefore = await balanceOf(`fee:${w.usd.id}`);
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: before.id }));
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(await paymentIn(s, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed', debitAmount: usd('220'), fee: usd('20') });
    expect((await balanceOf(`fee:${w.usd.id}`)) - feesBefore).toBe(units(20));
    await setFees(w.usd.id, noFees);
  });
});

describe('a payment that fails', () => {
  it('pays no fee: its whole debit amount, fee included, is left to withdraw', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 500 } });
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: usd('100') }));
    // Two quotes for the whole amount: the second payment finds the intent completed.
    const quotes = [
      await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id })),
      await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id })),
    ];
    const feesBefore = await balanceOf(`fee:${w.usd.id}`);
    const payments = [];
    for (const quote of quotes) {
      const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
      await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
      payments.push(await paymentIn(s, payment.id, ['completed', 'failed']));
    }
    expect(payments.map((p) => p.state)).toEqual(['completed', 'failed']);
    expect((await balanceOf(`fee:${w.usd.id}`)) - feesBefore).toBe(units(15));
    const withdrawn = await ok(s.admin('POST', `/payments/${payments[1].id}/withdraw`), 200);
    expect(withdrawn).toMatchObject({ withdrawnAmount: usd('115'), fee: usd('15') });
    await checkLedger();
    await setFees(w.usd.id, noFees);
  });
});

describe('a receiving fee', () => {
  it('is taken from the credit: the intent shows what was paid, what was credited and the fee; across currencies each fee is in its own asset', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 100 } });
    await setFees(w.eur.id, { receivingFee: { fixed: '5', basisPoints: 100 } });
    const before = { usd: await balanceOf(`fee:${w.usd.id}`), eur: await balanceOf(`fee:${w.eur.id}`) };
    // 9.00 EUR at 0.9 costs 10.00 USD, plus 0.10 + 1% of it in USD; the receiver gets 9.00 EUR less 0.05 + 1% of it, in EUR.
    const { intent, quote, payment } = await pay(w.alice, w.carlos, eur('900'));
    expect(quote).toMatchObject({ debitAmount: usd('1020'), receiveAmount: eur('900'), fee: usd('20') });
    expect(payment).toMatchObject({ state: 'completed', fee: usd('20'), sentAmount: usd('1000') });
    const paid = await ok(s.admin('GET', `/payment-intents/${intent.id}`), 200);
    expect(paid).toMatchObject({ state: 'completed', paidAmount: eur('900'), receivedAmount: eur('886'), receivingFee: eur('14') });
    const completed = await events.waitForEvent('payment_intent.completed', (d) => d.id === intent.id);
    expect(completed.data).toMatchObject({ receivedAmount: eur('886'), receivingFee: eur('14') });
    expect((await balanceOf(`fee:${w.usd.id}`)) - before.usd).toBe(units(20));
    expect((await balanceOf(`fee:${w.eur.id}`)) - before.eur).toBe(units(14));
    expect(await balanceOf(`intent:${intent.id}`)).toBe(units(886));
    const check = await checkLedger();
    for (const a of check.assets) expect(a).toMatchObject({ sum: '0', balanced: true });
    await setFees(w.usd.id, noFees);
    await setFees(w.eur.id, noFees);
  });

  it('is the one the intent was made with, and its fixed part is paid once however many payments pay the intent', async () => {
    await setFees(w.usd.id, { receivingFee: { fixed: '3', basisPoints: 1000 } });
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: usd('300') }));
    await setFees(w.usd.id, { receivingFee: { fixed: '50', basisPoints: 0 } }); // not this intent's
    for (const value of ['100', '100', '100']) {
      const quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, receiveAmount: usd(value) }));
      const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
      await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
      expect(await paymentIn(s, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed' });
    }
    // 0.03 + 10% of 3.00, as if paid at once.
    expect(await ok(s.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({
      state: 'completed',
      paidAmount: usd('300'),
      receivingFee: usd('33'),
      receivedAmount: usd('267'),
    });
    await checkLedger();
    await setFees(w.usd.id, noFees);
  });
});

describe('on an intent closed short', () => {
  it('keeps what was credited, its receiving fee taken: keptAmount is what the intent holds and what a withdrawal pays out', async () => {
    await setFees(w.usd.id, { receivingFee: { fixed: '10', basisPoints: 0 } });
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: usd('1000') }));
    const quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, receiveAmount: usd('500') }));
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(await paymentIn(s, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed' });
    const closed = await ok(s.admin('POST', `/payment-intents/${intent.id}/complete`), 200);
    // 5.00 paid, 0.10 of it the FSP's fee: 4.90 kept for bob.
    expect(closed).toMatchObject({ paidAmount: usd('500'), receivedAmount: usd('490'), partialPayment: { keptAmount: usd('490'), returnedAmount: usd('0') } });
    const withdrawn = await ok(s.admin('POST', `/payment-intents/${intent.id}/withdraw`), 200);
    expect(withdrawn.withdrawnAmount).toEqual(closed.partialPayment.keptAmount);
    await checkLedger();
    await setFees(w.usd.id, noFees);
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
