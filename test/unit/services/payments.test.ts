import { randomUUID } from 'node:crypto';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAsset, moveLiquidity } from '../../../lib/assets';
import { checkLedger } from '../../../lib/ledger-check';
import { completeIntent, createIntent, expireDueIntents, getIntent } from '../../../lib/payment-intents';
import { cancelPayment, createPayment, createPaymentRecord, fundPayment, getPayment, withdrawPayment } from '../../../lib/payments';
import { createQuote } from '../../../lib/payments/methods/quote';
import { quoteView } from '../../../lib/quotes';
import { pushRate } from '../../../lib/rates';
import { DomainError } from '../../../lib/shared/errors';
import { createWalletAddress } from '../../../lib/wallet-addresses';
import {
  deliverPaymentMessage,
  eventsOf,
  inMemory,
  ledgerOf,
  memoryWorld,
  paymentMessagesOf,
  refusal,
  runPaymentWorker,
  withFaults,
} from '../../harness/in-memory';

// Payments' rules in memory: the flow from intent to completed payment, in one currency and across
// two, quotes' amounts and refusals, funding and cancelling, a duplicate message and a crash of the
// worker after its write, and the permanent failures that leave a payment's funds withdrawable,
// payments racing to one intent among them. What only the stack shows (the Admin API's validation,
// metadata DynamoDB could not hold, one payment through SQS and the webhooks, the stream and the
// relay down, 50 payments contending on DynamoDB's shards) is test/integration/payments.test.ts's
// and payments-faults.test.ts's.
// One world for the file, as the stack's (the wallet addresses' records are cached by URL).
const mem = inMemory({}, { fresh: 'file' });
let w: Awaited<ReturnType<typeof memoryWorld>>;
beforeAll(async () => {
  w = await memoryWorld(mem);
});
afterEach(() => vi.useRealTimers());

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const eur = (value: string) => ({ value, assetCode: 'EUR', assetScale: 2 });
const units = (value: string | number | bigint) => BigInt(value) * 10n ** 18n; // scale 2 -> ledger scale 20
const balanceOf = (account: string) => ledgerOf(mem.db).get(account) ?? 0n;
const sum = () => [...ledgerOf(mem.db).values()].reduce((a, b) => a + b, 0n);
const typesOf = (id: string) =>
  eventsOf(mem.db)
    .filter((e) => e.data.id === id)
    .map((e) => e.type)
    .sort();
const intent = (walletAddress: string, extra: Record<string, unknown> = {}) => createIntent(mem.node, { walletAddress, ...extra } as never);
const quote = async (walletAddress: string, receiver: string, extra: Record<string, unknown> = {}) =>
  quoteView(await createQuote(mem.node, { walletAddress, receiver, ...extra } as never));
const paymentOf = (walletAddress: string, quoteId: string) => createPayment(mem.node, { walletAddress, quoteId } as never);
// An intent of `incoming` on `to`, quoted for all of it from `from`, and a payment in funding.
async function createFlow(from: string, to: string, incoming: { value: string; assetCode: string; assetScale: number }) {
  const i = await intent(to, { incomingAmount: incoming });
  const q = await quote(from, i.id);
  return { intent: i, quote: q, payment: await paymentOf(from, q.id) };
}
// A payment funded and delivered by the worker, as it is after.
async function sent(paymentId: string) {
  await fundPayment(mem.node, paymentId);
  await runPaymentWorker(mem);
  return getPayment(mem.node, paymentId);
}
// The DomainError a promise is refused with (refusal() says only its status and code).
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => expect.fail('expected a DomainError'),
    (e: unknown) => (e instanceof DomainError ? e : Promise.reject(e)),
  );

describe('the basic payment flow', () => {
  it('USD to USD: intent, quote, payment, fund, completed; the intent completes', async () => {
    const { intent: i, quote: q, payment } = await createFlow(w.alice, w.bob, usd('1000'));
    const view = await getIntent(mem.node, i.id);
    expect(view).toMatchObject({ walletAddress: w.bob, state: 'pending', incomingAmount: usd('1000'), receivedAmount: { value: '0' } });
    expect(q).toMatchObject({
      walletAddress: w.alice,
      receiver: view.url,
      debitAmount: { value: '1000', assetCode: 'USD' },
      receiveAmount: { value: '1000', assetCode: 'USD' },
      estimatedExchangeRate: 1,
    });
    expect(view.url).toMatch(new RegExp(`/incoming-payments/${i.id}$`));
    expect(payment).toMatchObject({ walletAddress: w.alice, quoteId: q.id, state: 'funding', sentAmount: { value: '0' }, debitAmount: q.debitAmount });

    expect((await fundPayment(mem.node, payment.id)).state).toBe('sending');
    expect(await runPaymentWorker(mem)).toBe(1);
    const done = await getPayment(mem.node, payment.id);
    expect(done).toMatchObject({ state: 'completed', sentAmount: usd('1000') });
    expect(await getIntent(mem.node, i.id)).toMatchObject({ state: 'completed', receivedAmount: usd('1000') });
    expect(eventsOf(mem.db, 'payment.completed').find((e) => e.data.id === payment.id)?.data.state).toBe('completed');
    expect(typesOf(i.id)).toEqual(['payment_intent.completed', 'payment_intent.created']);
    expect(typesOf(payment.id)).toEqual(['payment.completed', 'payment.created', 'payment.funded']);
    expect(balanceOf(`intent:${i.id}`)).toBe(units(1000));
    expect(sum()).toBe(0n);
  });

  it('USD to EUR: converts through both liquidity accounts at the pushed rate', async () => {
    const before = ledgerOf(mem.db);
    const { quote: q, payment, intent: i } = await createFlow(w.alice, w.carlos, eur('900'));
    expect(q).toMatchObject({ debitAmount: usd('1000'), receiveAmount: eur('900'), estimatedExchangeRate: 0.9 });
    expect((await sent(payment.id)).state).toBe('completed');
    const after = ledgerOf(mem.db);
    const delta = (acct: string) => (after.get(acct) ?? 0n) - (before.get(acct) ?? 0n);
    expect(delta(`liquidity:${w.usd.id}`)).toBe(units(1000));
    expect(delta(`liquidity:${w.eur.id}`)).toBe(-units(900));
    expect(delta(`intent:${i.id}`)).toBe(units(900));
    expect(delta(`settlement:${w.usd.id}`)).toBe(-units(1000));
    expect(sum()).toBe(0n);
    expect((await getIntent(mem.node, i.id)).state).toBe('completed');
  });

  it('a quote for a debit amount rounds the receive amount down; one for a receive amount rounds the debit up', async () => {
    const i = await intent(w.carlos);
    expect((await quote(w.alice, i.id, { debitAmount: usd('333') })).receiveAmount.value).toBe('299'); // 2.997 EUR, rounded down
    expect((await quote(w.alice, i.id, { receiveAmount: eur('100') })).debitAmount.value).toBe('112'); // 1.1111 USD, rounded up
  });

  it('a partly paid intent is processing, its next quote is for the rest and no more, and the rest completes it', async () => {
    const i = await intent(w.bob, { incomingAmount: usd('500') });
    const first = await paymentOf(w.alice, (await quote(w.alice, i.id, { receiveAmount: usd('200') })).id);
    expect((await sent(first.id)).state).toBe('completed');
    expect(await getIntent(mem.node, i.id)).toMatchObject({ state: 'processing', receivedAmount: { value: '200' } });
    const rest = await quote(w.alice, i.id);
    expect(rest.receiveAmount.value).toBe('300'); // the remaining amount
    expect(await refusal(createQuote(mem.node, { walletAddress: w.alice, receiver: i.id, receiveAmount: usd('301') } as never))).toBe(
      '422 amount_exceeds_remaining',
    );
    expect((await sent((await paymentOf(w.alice, rest.id)).id)).state).toBe('completed');
    expect(await getIntent(mem.node, i.id)).toMatchObject({ state: 'completed', receivedAmount: usd('500') });
  });
});

describe('quotes and payments refused', () => {
  it('a cross-currency quote with no rate is 422 rate_unavailable, naming the pair', async () => {
    await createAsset(mem.node, { code: 'GBP', scale: 2 });
    const gwen = (await createWalletAddress(mem.node, { address: `${mem.node.urls.walletAddresses}/gwen`, assetCode: 'GBP' } as never)).address;
    const i = await intent(gwen, { incomingAmount: { value: '100', assetCode: 'GBP', assetScale: 2 } });
    const e = await errorOf(createQuote(mem.node, { walletAddress: w.alice, receiver: i.id } as never));
    expect([e.status, e.code]).toEqual([422, 'rate_unavailable']);
    expect(e.message).toContain('USD→GBP'); // the problem's detail
  });

  it('a quote lives 300 s; expired, it is 422 quote_expired', async () => {
    const i = await intent(w.bob, { incomingAmount: usd('100') });
    const q = await quote(w.alice, i.id);
    expect(Date.parse(q.expiresAt) - Date.parse(q.createdAt)).toBe(300_000);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse(q.expiresAt) + 1000);
    expect(await refusal(paymentOf(w.alice, q.id))).toBe('422 quote_expired');
  });

  it('a used quote is 409 quote_used; another wallet cannot use one (422 quote_wallet_mismatch)', async () => {
    const { quote: q } = await createFlow(w.alice, w.bob, usd('100'));
    expect(await refusal(createPayment(mem.node, { walletAddress: w.alice, quoteId: q.id, metadata: { again: true } } as never))).toBe('409 quote_used');
    const other = await quote(w.alice, (await intent(w.bob)).id, { debitAmount: usd('5') });
    expect(await refusal(paymentOf(w.bob, other.id))).toBe('422 quote_wallet_mismatch');
  });

  it("the sender's wallet address matches its quote in any letter case", async () => {
    const q = await quote(w.alice, (await intent(w.bob, { metadata: { case: true } })).id, { debitAmount: usd('7') });
    expect((await paymentOf(`${w.alice.toUpperCase()}/`, q.id)).walletAddress).toBe(w.alice);
  });

  it('funding twice is 409; cancel works only before funding, with no cancelReason', async () => {
    const { payment } = await createFlow(w.alice, w.bob, usd('100'));
    await fundPayment(mem.node, payment.id);
    expect(await refusal(fundPayment(mem.node, payment.id))).toBe('409 invalid_state');
    expect(await refusal(cancelPayment(mem.node, payment.id))).toBe('409 invalid_state');
    await runPaymentWorker(mem);
    expect((await getPayment(mem.node, payment.id)).state).toBe('completed');

    const second = await createFlow(w.alice, w.bob, usd('100'));
    const cancelled = await cancelPayment(mem.node, second.payment.id);
    expect(cancelled.state).toBe('cancelled');
    expect(cancelled).not.toHaveProperty('cancelReason'); // the FSP's own cancel gives none
    expect(await refusal(fundPayment(mem.node, second.payment.id))).toBe('409 invalid_state');
    const events = eventsOf(mem.db, 'payment.cancelled').filter((e) => e.data.id === second.payment.id);
    expect(events).toHaveLength(1);
    expect(events[0].data).not.toHaveProperty('cancelReason');
  });

  it('racing fundings of one payment fund it once; the refused one publishes nothing', async () => {
    const { payment, intent: i } = await createFlow(w.alice, w.bob, usd('100'));
    const answers = await Promise.allSettled([fundPayment(mem.node, payment.id), fundPayment(mem.node, payment.id)]);
    expect(answers.filter((a) => a.status === 'fulfilled')).toHaveLength(1);
    const refused = answers.find((a) => a.status === 'rejected');
    expect(await refusal(Promise.reject(refused?.reason))).toBe('409 invalid_state');
    expect(paymentMessagesOf(mem).filter((m) => m.body.paymentId === payment.id)).toHaveLength(1);
    await runPaymentWorker(mem);
    expect((await getPayment(mem.node, payment.id)).state).toBe('completed');
    expect(balanceOf(`intent:${i.id}`)).toBe(units(100));
    expect(eventsOf(mem.db, 'payment.funded').filter((e) => e.data.id === payment.id)).toHaveLength(1);
  });
});

describe('faults lose nothing and never double-spend', () => {
  it('the same payment message delivered several times at once makes one transfer and one payment.completed', async () => {
    const { payment, intent: i } = await createFlow(w.alice, w.bob, usd('700'));
    await fundPayment(mem.node, payment.id);
    const [funding] = paymentMessagesOf(mem).filter((m) => m.body.paymentId === payment.id);
    expect(funding.body).toMatchObject({ paymentId: payment.id, intentId: i.id });
    // Three more messages of the same body (each its own message id, as SQS gives them), and the
    // funding's own, delivered at once.
    await Promise.all([randomUUID(), randomUUID(), randomUUID(), funding.id].map((id) => deliverPaymentMessage(mem, funding.body, id)));
    expect((await getPayment(mem.node, payment.id)).state).toBe('completed');
    expect(balanceOf(`intent:${i.id}`)).toBe(units(700));
    expect(balanceOf(`payment:${payment.id}`)).toBe(0n);
    expect(sum()).toBe(0n);
    expect(eventsOf(mem.db, 'payment.completed').filter((e) => e.data.id === payment.id)).toHaveLength(1);
  });

  it('a crash right after the worker writes: the message comes back, finds the work done, and each event was committed once', async () => {
    const { payment, intent: i } = await createFlow(w.alice, w.carlos, eur('450'));
    await fundPayment(mem.node, payment.id);
    const [funding] = paymentMessagesOf(mem).filter((m) => m.body.paymentId === payment.id);
    await expect(withFaults(['payment-worker:after-write'], () => deliverPaymentMessage(mem, funding.body, funding.id))).rejects.toThrow(
      'Injected crash at payment-worker:after-write',
    );
    // The write committed before the crash: the payment is completed, its events in the outbox.
    expect((await getPayment(mem.node, payment.id)).state).toBe('completed');
    await deliverPaymentMessage(mem, funding.body, funding.id); // SQS delivers it again
    await runPaymentWorker(mem);
    expect(balanceOf(`intent:${i.id}`)).toBe(units(450));
    expect(sum()).toBe(0n);
    expect(typesOf(payment.id)).toEqual(['payment.completed', 'payment.created', 'payment.funded']);
    expect(typesOf(i.id)).toEqual(['payment_intent.completed', 'payment_intent.created']);
  });

  it('a message with only the payment id (as written before messages carried the intent) still delivers a local payment, once', async () => {
    const { payment, intent: i } = await createFlow(w.alice, w.bob, usd('300'));
    await fundPayment(mem.node, payment.id);
    await deliverPaymentMessage(mem, { paymentId: payment.id }, randomUUID()); // before the funding's own message
    expect((await getPayment(mem.node, payment.id)).state).toBe('completed');
    expect(await runPaymentWorker(mem)).toBe(1); // then the funding's message comes, and finds the work done
    expect(balanceOf(`intent:${i.id}`)).toBe(units(300));
    expect(eventsOf(mem.db, 'payment.completed').filter((e) => e.data.id === payment.id)).toHaveLength(1);
  });

  it('crossing the liquidity threshold emits asset.liquidity_low once, with the liquidity left', async () => {
    // An asset of its own, 1000.00 CHF with a 600.00 threshold.
    const chf = await createAsset(mem.node, { code: 'CHF', scale: 2, liquidityThreshold: '60000' } as never);
    await moveLiquidity(mem.node, chf.id, '100000', 'deposit');
    await pushRate(mem.node, { sourceAssetCode: 'USD', destinationAssetCode: 'CHF', rate: 1, rateTtlSecs: 86400 } as never);
    const chloe = (await createWalletAddress(mem.node, { address: `${mem.node.urls.walletAddresses}/chloe`, assetCode: 'CHF' } as never)).address;
    const chf$ = (value: string) => ({ value, assetCode: 'CHF', assetScale: 2 });
    const pay = async (value: string) => expect((await sent((await createFlow(w.alice, chloe, chf$(value))).payment.id)).state).toBe('completed');
    await pay('40000'); // leaves 600.00: not below
    expect(eventsOf(mem.db, 'asset.liquidity_low')).toEqual([]);
    await pay('10'); // leaves 599.90
    await pay('10'); // further below: no second event
    const low = eventsOf(mem.db, 'asset.liquidity_low');
    expect(low).toHaveLength(1);
    expect(low[0].data).toMatchObject({ id: chf.id, liquidity: chf$('59990') });
  });
});

describe('permanent failures fail the payment and leave its funds withdrawable', () => {
  it('not enough destination liquidity', async () => {
    const beyond = BigInt(balanceOf(`liquidity:${w.eur.id}`) / 10n ** 18n) + 100n;
    const q = await quote(w.alice, (await intent(w.carlos)).id, { receiveAmount: eur(beyond.toString()) });
    const payment = await paymentOf(w.alice, q.id);
    expect(await sent(payment.id)).toMatchObject({ state: 'failed', failureReason: 'insufficient_liquidity' });
    expect(eventsOf(mem.db, 'payment.failed').filter((e) => e.data.id === payment.id)).toHaveLength(1);
    expect((await withdrawPayment(mem.node, payment.id)).withdrawnAmount).toEqual(q.debitAmount);
    expect(balanceOf(`payment:${payment.id}`)).toBe(0n);
    expect(sum()).toBe(0n);
  });

  it('the intent expired before the payment was funded: funding is refused, the intent expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const i = await intent(w.bob, { expiresAt, incomingAmount: usd('100') });
    const q = await quote(w.alice, i.id);
    expect(q.expiresAt).toBe(expiresAt); // a quote never outlives its intent
    const payment = await paymentOf(w.alice, q.id);
    vi.setSystemTime(Date.parse(expiresAt) + 1000);
    expect((await getIntent(mem.node, i.id)).state).toBe('expired');
    // Its quote expired with the intent: funding now would send at a rate nobody quoted.
    expect(await refusal(fundPayment(mem.node, payment.id))).toBe('422 quote_expired');
    expect((await cancelPayment(mem.node, payment.id)).state).toBe('cancelled');
    // The expirer records the expiry and tells the FSP.
    expect(await expireDueIntents(mem.node)).toBeGreaterThanOrEqual(1);
    expect(eventsOf(mem.db, 'payment_intent.expired').filter((e) => e.data.id === i.id)).toHaveLength(1);
    expect(await refusal(completeIntent(mem.node, i.id))).toBe('409 invalid_state');
  });

  it('two quotes for the same remaining amount: the second payment fails rather than overpay', async () => {
    const i = await intent(w.bob, { incomingAmount: usd('100') });
    const quotes = [await quote(w.alice, i.id, { receiveAmount: usd('60') }), await quote(w.alice, i.id, { receiveAmount: usd('60') })];
    const payments = [];
    for (const q of quotes) payments.push(await paymentOf(w.alice, q.id));
    expect((await sent(payments[0].id)).state).toBe('completed');
    expect(await sent(payments[1].id)).toMatchObject({ state: 'failed', failureReason: 'amount_exceeds_remaining' });
    expect((await getIntent(mem.node, i.id)).receivedAmount.value).toBe('60');
    expect((await withdrawPayment(mem.node, payments[1].id)).withdrawnAmount.value).toBe('60');
    expect(sum()).toBe(0n);
  });

  it('payments racing to one intent never overpay it: those that would fail, their funds withdrawable', async () => {
    const i = await intent(w.bob, { incomingAmount: usd('100') });
    const payments: Awaited<ReturnType<typeof paymentOf>>[] = [];
    for (let n = 0; n < 5; n++) payments.push(await paymentOf(w.alice, (await quote(w.alice, i.id, { receiveAmount: usd('40') })).id));
    await Promise.all(payments.map((p) => fundPayment(mem.node, p.id)));
    // The five messages delivered at once, as five workers would.
    const messages = paymentMessagesOf(mem).filter((m) => payments.some((p) => p.id === m.body.paymentId));
    expect(messages).toHaveLength(5);
    await Promise.all(messages.map((m) => deliverPaymentMessage(mem, m.body, m.id)));
    const done = await Promise.all(payments.map((p) => getPayment(mem.node, p.id)));
    expect(done.filter((p) => p.state === 'completed')).toHaveLength(2);
    expect(done.filter((p) => p.state === 'failed').map((p) => p.failureReason)).toEqual(Array(3).fill('amount_exceeds_remaining'));
    expect(await getIntent(mem.node, i.id)).toMatchObject({ state: 'processing', receivedAmount: { value: '80' } });
    for (const p of done.filter((d) => d.state === 'failed')) {
      expect((await withdrawPayment(mem.node, p.id)).withdrawnAmount.value).toBe('40');
    }
    expect(balanceOf(`intent:${i.id}`)).toBe(units(80));
    expect(sum()).toBe(0n);
    expect((await checkLedger(mem.node)).balanced).toBe(true);
  });

  it('the intent was completed by the FSP first', async () => {
    const { payment, intent: i } = await createFlow(w.alice, w.bob, usd('100'));
    expect((await completeIntent(mem.node, i.id)).state).toBe('completed');
    expect(eventsOf(mem.db, 'payment_intent.completed').filter((e) => e.data.id === i.id)).toHaveLength(1);
    expect(await sent(payment.id)).toMatchObject({ state: 'failed', failureReason: 'payment_intent_completed' });
    expect(await refusal(completeIntent(mem.node, i.id))).toBe('409 invalid_state');
  });
});

// Issue 44: which client's quote an Open Payments app may pay. By default its own only; with
// OPEN_PAYMENTS_ANY_CLIENT_QUOTES (Rafiki's rule) any client's for the wallet address, never the FSP's.
describe("an app paying another client's quote", () => {
  const grantOf = (client: string) => ({ client, grantId: randomUUID(), period: { key: 'all' } });
  const quoteBy = async (client?: string) => {
    const intent = await createIntent(mem.node, { walletAddress: w.bob, incomingAmount: usd('100') } as never);
    return createQuote(mem.node, { walletAddress: w.alice, receiver: intent.id } as never, client);
  };

  it("refuses another app's quote and the FSP's by default; takes another app's, not the FSP's, when the setting allows", async () => {
    await moveLiquidity(mem.node, w.usd.id, '100000', 'deposit');
    const theirs = await quoteBy('https://apps.example/theirs');
    const fsp = await quoteBy();
    const pay = (node: typeof mem.node, quoteId: string) =>
      createPaymentRecord(node, { walletAddress: w.alice, quoteId } as never, grantOf('https://apps.example/mine'));
    expect(await refusal(pay(mem.node, theirs.id))).toBe('403 forbidden');
    expect(await refusal(pay(mem.node, fsp.id))).toBe('403 forbidden');
    const rafikiLike = { ...mem.node, anyClientQuotes: true };
    expect(await refusal(pay(rafikiLike, fsp.id))).toBe('403 forbidden');
    expect((await pay(rafikiLike, theirs.id)).record).toMatchObject({ quoteId: theirs.id, client: 'https://apps.example/mine', state: 'funding' });
  });
});
