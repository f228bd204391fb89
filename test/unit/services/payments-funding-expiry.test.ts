import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkLedger } from '../../../lib/ledger-check';
import { createIntent } from '../../../lib/payment-intents';
import { cancelExpiredFundings, createPayment, fundPayment, getPayment, listPayments } from '../../../lib/payments';
import { createQuote } from '../../../lib/payments/methods/quote';
import { eventsOf, inMemory, ledgerOf, memoryWorld, refusal, runPaymentWorker } from '../../harness/in-memory';

// Payments left in funding past their quote's expiry (QUOTE_LIFETIME_SECS, 5 s here), which can
// never be funded: the sweeper (cancelExpiredFundings, which the scheduled function runs for each
// tenant) cancels them. The clock is moved past the expiry rather than waited for. A fund racing
// the sweeper at the expiry, on DynamoDB, is test/integration/payments-funding-expiry.test.ts's.
const mem = inMemory({ QUOTE_LIFETIME_SECS: '5' }, { fresh: 'file' });
let w: Awaited<ReturnType<typeof memoryWorld>>;
beforeAll(async () => {
  w = await memoryWorld(mem);
});
afterEach(() => vi.useRealTimers());

const sweep = () => cancelExpiredFundings(mem.node);
const paymentAccount = (id: string) => ledgerOf(mem.db).get(`payment:${id}`) ?? 0n;
async function createFlow(value: string) {
  const intent = await createIntent(mem.node, { walletAddress: w.bob, incomingAmount: { value, assetCode: 'USD', assetScale: 2 } } as never);
  const quote = await createQuote(mem.node, { walletAddress: w.alice, receiver: intent.id } as never);
  const payment = await createPayment(mem.node, { walletAddress: w.alice, quoteId: quote.id } as never);
  return { intent, quote, payment };
}
const typesOf = (id: string) =>
  eventsOf(mem.db)
    .filter((e) => e.data.id === id)
    .map((e) => e.type)
    .sort();

describe('payments left in funding past their quote', () => {
  it('are cancelled with cancelReason quote_expired and payment.cancelled; one funded in time is untouched', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const left = await createFlow('100');
    const funded = await createFlow('200');
    await fundPayment(mem.node, funded.payment.id);
    await runPaymentWorker(mem);
    vi.setSystemTime(Date.parse(left.quote.expiresAt) + 1); // the quotes past their expiry

    expect(await sweep()).toBe(1);
    expect(await getPayment(mem.node, left.payment.id)).toEqual({ ...left.payment, state: 'cancelled', cancelReason: 'quote_expired' });
    const cancelled = eventsOf(mem.db, 'payment.cancelled').find((e) => e.data.id === left.payment.id);
    expect(cancelled?.data).toMatchObject({ state: 'cancelled', cancelReason: 'quote_expired' });
    // Never funded, and never will be: nothing moved into it.
    expect(await refusal(fundPayment(mem.node, left.payment.id))).toBe('409 invalid_state');
    expect(paymentAccount(left.payment.id)).toBe(0n);
    expect(await listPayments(mem.node, { limit: 20, state: 'funding' })).toMatchObject({ items: [] });

    const sent = await getPayment(mem.node, funded.payment.id);
    expect(sent.state).toBe('completed');
    expect(sent).not.toHaveProperty('cancelReason');
    expect(await sweep()).toBe(0); // nothing left to cancel
    expect(typesOf(left.payment.id)).toEqual(['payment.cancelled', 'payment.created']);
    expect(typesOf(funded.payment.id)).toEqual(['payment.completed', 'payment.created', 'payment.funded']);
    expect([...ledgerOf(mem.db).values()].reduce((a, b) => a + b, 0n)).toBe(0n);
    expect((await checkLedger(mem.node)).balanced).toBe(true);
  });
});
