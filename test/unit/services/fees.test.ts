import { beforeAll, describe, expect, it } from 'vitest';
import { getAsset, updateAsset } from '../../../lib/assets';
import { checkLedger } from '../../../lib/ledger-check';
import { completeIntent, createIntent, getIntent, withdrawIntent } from '../../../lib/payment-intents';
import { createPayment, fundPayment, getPayment, withdrawPayment } from '../../../lib/payments';
import { createQuote } from '../../../lib/payments/methods/quote';
import { getQuote, quoteView } from '../../../lib/quotes';
import { eventsOf, inMemory, ledgerOf, memoryWorld, refusal, runPaymentWorker } from '../../harness/in-memory';

// Issue 31's fees, their rules in memory: a sending fee added to the sender's debit in the debit
// asset, a receiving fee taken from the intent's credit in its asset, both booked to the asset's fee
// account, counted by the ledger check. What only the stack shows (PATCH /assets/{id} and its
// validation, the webhooks that carry a fee, Open Payments' quotes and incoming payments) is
// test/integration/fees.test.ts's.
// One world for the file, as the stack's (the wallet addresses' records are cached by URL).
const mem = inMemory({}, { fresh: 'file' });
let w: Awaited<ReturnType<typeof memoryWorld>>;
beforeAll(async () => {
  w = await memoryWorld(mem);
});
const noFees = { sendingFee: null, receivingFee: null };

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const eur = (value: string) => ({ value, assetCode: 'EUR', assetScale: 2 });
const units = (value: string | number) => BigInt(value) * 10n ** 18n; // scale 2 -> ledger scale 20
const setFees = (assetId: string, fees: Record<string, unknown>) => updateAsset(mem.node, assetId, fees as never);
const balanceOf = (account: string) => ledgerOf(mem.db).get(account) ?? 0n;
const expectLedgerChecked = async () => {
  const check = await checkLedger(mem.node);
  expect(check).toMatchObject({ balanced: true, unattributed: [] });
  return check;
};

const intent = async (walletAddress: string, incomingAmount?: ReturnType<typeof usd>) =>
  getIntent(mem.node, (await createIntent(mem.node, { walletAddress, ...(incomingAmount && { incomingAmount }) } as never)).id);
const quote = async (walletAddress: string, receiver: string, extra = {}) =>
  quoteView(await createQuote(mem.node, { walletAddress, receiver, ...extra } as never));
async function payQuote(walletAddress: string, quoteId: string) {
  const payment = await createPayment(mem.node, { walletAddress, quoteId } as never);
  await fundPayment(mem.node, payment.id);
  await runPaymentWorker(mem);
  return getPayment(mem.node, payment.id);
}
async function pay(from: string, to: string, incoming: ReturnType<typeof usd>, quoteExtra = {}) {
  const i = await intent(to, incoming);
  const q = await quote(from, i.id, quoteExtra);
  return { intent: i, quote: q, payment: await payQuote(from, q.id) };
}

describe('asset changes', () => {
  it('serializes changes made at once: every field each names is kept', async () => {
    const changes = [
      { sendingFee: { fixed: '1', basisPoints: 1 } },
      { receivingFee: { fixed: '2', basisPoints: 2 } },
      { liquidityThreshold: '3' },
      { sendingFee: { fixed: '1', basisPoints: 1 }, receivingFee: { fixed: '2', basisPoints: 2 } },
    ];
    await Promise.all(changes.map((c) => setFees(w.eur.id, c)));
    expect(await getAsset(mem.node, w.eur.id)).toMatchObject({
      sendingFee: { fixed: '1', basisPoints: 1 },
      receivingFee: { fixed: '2', basisPoints: 2 },
      liquidityThreshold: '3',
    });
    await setFees(w.eur.id, { ...noFees, liquidityThreshold: null });
  });
});

describe('a sending fee', () => {
  it('on a 1.00 USD payment, 0.10 + 500 bps debits 1.15 and books 0.15 to the fee account; the payment and its events carry it', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 500 } });
    const feesBefore = balanceOf(`fee:${w.usd.id}`);
    const settlementBefore = balanceOf(`settlement:${w.usd.id}`);
    const { intent: i, quote: q, payment } = await pay(w.alice, w.bob, usd('100'));
    expect(q).toMatchObject({ debitAmount: usd('115'), receiveAmount: usd('100'), fee: usd('15'), sendingFee: { fixed: '10', basisPoints: 500 } });
    expect(payment).toMatchObject({ state: 'completed', debitAmount: usd('115'), fee: usd('15'), sentAmount: usd('100') });
    expect(await getIntent(mem.node, i.id)).toMatchObject({ state: 'completed', paidAmount: usd('100'), receivedAmount: usd('100'), receivingFee: usd('0') });
    expect(balanceOf(`fee:${w.usd.id}`) - feesBefore).toBe(units(15));
    expect(settlementBefore - balanceOf(`settlement:${w.usd.id}`)).toBe(units(115));
    expect(balanceOf(`intent:${i.id}`)).toBe(units(100));
    expect(balanceOf(`payment:${payment.id}`)).toBe(0n);
    for (const type of ['payment.created', 'payment.funded', 'payment.completed'])
      expect(eventsOf(mem.db, type).find((e) => e.data.id === payment.id)?.data.fee).toEqual(usd('15'));
    await expectLedgerChecked();
  });

  it('with 0.10 + 50 bps on 1.00 USD debits 1.11: the half cent is rounded up, in the FSP’s favour', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 50 } });
    const { quote: q, payment } = await pay(w.alice, w.bob, usd('100'));
    expect(q).toMatchObject({ debitAmount: usd('111'), fee: usd('11') });
    expect(payment).toMatchObject({ state: 'completed', sentAmount: usd('100') });
  });

  it('given a debitAmount, is taken out of it: what is left is sent', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 50 } });
    const i = await intent(w.bob);
    expect(await quote(w.alice, i.id, { debitAmount: usd('111') })).toMatchObject({ debitAmount: usd('111'), receiveAmount: usd('100'), fee: usd('11') });
    // Less than the fixed part leaves nothing to send.
    expect(await refusal(quote(w.alice, i.id, { debitAmount: usd('10') }))).toBe('422 amount_too_small');
  });

  it('changed after a quote was made leaves that quote and its payment as they were; a new quote has the new fee', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 500 } });
    const i = await intent(w.bob, usd('200'));
    const before = await quote(w.alice, i.id);
    expect(before).toMatchObject({ debitAmount: usd('220'), fee: usd('20') });
    await setFees(w.usd.id, { sendingFee: { fixed: '0', basisPoints: 10000 } });
    expect(await quote(w.alice, i.id)).toMatchObject({ debitAmount: usd('400'), fee: usd('200'), sendingFee: { fixed: '0', basisPoints: 10000 } });
    expect(await getQuote(mem.node, before.id)).toMatchObject({ debitAmount: usd('220'), fee: usd('20'), sendingFee: { fixed: '10', basisPoints: 500 } });
    const feesBefore = balanceOf(`fee:${w.usd.id}`);
    expect(await payQuote(w.alice, before.id)).toMatchObject({ state: 'completed', debitAmount: usd('220'), fee: usd('20') });
    expect(balanceOf(`fee:${w.usd.id}`) - feesBefore).toBe(units(20));
    await setFees(w.usd.id, noFees);
  });
});

describe('a payment that fails', () => {
  it('pays no fee: its whole debit amount, fee included, is left to withdraw', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 500 } });
    const i = await intent(w.bob, usd('100'));
    // Two quotes for the whole amount: the second payment finds the intent completed.
    const quotes = [await quote(w.alice, i.id), await quote(w.alice, i.id)];
    const feesBefore = balanceOf(`fee:${w.usd.id}`);
    const payments = [];
    for (const q of quotes) payments.push(await payQuote(w.alice, q.id));
    expect(payments.map((p) => p.state)).toEqual(['completed', 'failed']);
    expect(balanceOf(`fee:${w.usd.id}`) - feesBefore).toBe(units(15));
    expect(await withdrawPayment(mem.node, payments[1].id)).toMatchObject({ withdrawnAmount: usd('115'), fee: usd('15') });
    await expectLedgerChecked();
    await setFees(w.usd.id, noFees);
  });
});

describe('a receiving fee', () => {
  it('is taken from the credit: the intent shows what was paid, what was credited and the fee; across currencies each fee is in its own asset', async () => {
    await setFees(w.usd.id, { sendingFee: { fixed: '10', basisPoints: 100 } });
    await setFees(w.eur.id, { receivingFee: { fixed: '5', basisPoints: 100 } });
    const before = { usd: balanceOf(`fee:${w.usd.id}`), eur: balanceOf(`fee:${w.eur.id}`) };
    // 9.00 EUR at 0.9 costs 10.00 USD, plus 0.10 + 1% of it in USD; the receiver gets 9.00 EUR less 0.05 + 1% of it, in EUR.
    const { intent: i, quote: q, payment } = await pay(w.alice, w.carlos, eur('900'));
    expect(q).toMatchObject({ debitAmount: usd('1020'), receiveAmount: eur('900'), fee: usd('20') });
    expect(payment).toMatchObject({ state: 'completed', fee: usd('20'), sentAmount: usd('1000') });
    expect(await getIntent(mem.node, i.id)).toMatchObject({ state: 'completed', paidAmount: eur('900'), receivedAmount: eur('886'), receivingFee: eur('14') });
    expect(eventsOf(mem.db, 'payment_intent.completed').find((e) => e.data.id === i.id)?.data).toMatchObject({
      receivedAmount: eur('886'),
      receivingFee: eur('14'),
    });
    expect(balanceOf(`fee:${w.usd.id}`) - before.usd).toBe(units(20));
    expect(balanceOf(`fee:${w.eur.id}`) - before.eur).toBe(units(14));
    expect(balanceOf(`intent:${i.id}`)).toBe(units(886));
    const check = await expectLedgerChecked();
    for (const a of check.assets) expect(a).toMatchObject({ sum: '0', balanced: true });
    await setFees(w.usd.id, noFees);
    await setFees(w.eur.id, noFees);
  });

  it('is the one the intent was made with, and its fixed part is paid once however many payments pay the intent', async () => {
    await setFees(w.usd.id, { receivingFee: { fixed: '3', basisPoints: 1000 } });
    const i = await intent(w.bob, usd('300'));
    await setFees(w.usd.id, { receivingFee: { fixed: '50', basisPoints: 0 } }); // not this intent's
    for (const value of ['100', '100', '100']) {
      const q = await quote(w.alice, i.id, { receiveAmount: usd(value) });
      expect(await payQuote(w.alice, q.id)).toMatchObject({ state: 'completed' });
    }
    // 0.03 + 10% of 3.00, as if paid at once.
    expect(await getIntent(mem.node, i.id)).toMatchObject({ state: 'completed', paidAmount: usd('300'), receivingFee: usd('33'), receivedAmount: usd('267') });
    await expectLedgerChecked();
    await setFees(w.usd.id, noFees);
  });
});

describe('on an intent closed short', () => {
  it('keeps what was credited, its receiving fee taken: keptAmount is what the intent holds and what a withdrawal pays out', async () => {
    await setFees(w.usd.id, { receivingFee: { fixed: '10', basisPoints: 0 } });
    const i = await intent(w.bob, usd('1000'));
    const q = await quote(w.alice, i.id, { receiveAmount: usd('500') });
    expect(await payQuote(w.alice, q.id)).toMatchObject({ state: 'completed' });
    await completeIntent(mem.node, i.id);
    const closed = await getIntent(mem.node, i.id);
    // 5.00 paid, 0.10 of it the FSP's fee: 4.90 kept for bob.
    expect(closed).toMatchObject({ paidAmount: usd('500'), receivedAmount: usd('490'), partialPayment: { keptAmount: usd('490'), returnedAmount: usd('0') } });
    const withdrawn = await withdrawIntent(mem.node, i.id);
    expect(withdrawn.withdrawnAmount).toEqual(closed.partialPayment!.keptAmount);
    await expectLedgerChecked();
    await setFees(w.usd.id, noFees);
  });
});
