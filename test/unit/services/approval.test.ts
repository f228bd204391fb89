import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkLedger } from '../../../lib/ledger-check';
import { approveIntent, cancelIntent, completeIntent, createIntent, expireDueIntents, getIntent, withdrawIntent } from '../../../lib/payment-intents';
import { createPayment, fundPayment, getPayment, withdrawPayment } from '../../../lib/payments';
import { createQuote } from '../../../lib/payments/methods/quote';
import { createWalletAddress } from '../../../lib/wallet-addresses';
import { eventsOf, inMemory, memoryWorld, refusal, runPaymentWorker } from '../../harness/in-memory';

// Intents held for the FSP's approval and intents closed short of their amount (issue 31 item 2),
// their local rules in memory, on a node that returns what a short intent's local payments paid
// (INCOMING_PARTIAL_PAYMENTS=return): an approval racing a cancellation, the expirer returning, a
// withdrawal before the close. Payments over Interledger, Open Payments and the webhooks are
// test/integration/approval.test.ts's.
const mem = inMemory({ INCOMING_PARTIAL_PAYMENTS: 'return' }, { fresh: 'file' });
let alice: string;
beforeAll(async () => {
  ({ alice } = await memoryWorld(mem));
});
afterEach(() => vi.useRealTimers());

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
let shops = 0;
const shop = async (approvalRequired: boolean) =>
  (await createWalletAddress(mem.node, { address: `${mem.node.urls.walletAddresses}/shop-${++shops}`, assetCode: 'USD', approvalRequired } as never)).address;
const intent = (walletAddress: string, extra: Record<string, unknown> = {}) => createIntent(mem.node, { walletAddress, ...extra } as never);
// A payment of `value` from alice to the intent, quoted, funded and delivered.
async function funded(intentId: string, value: string) {
  const quote = await createQuote(mem.node, { walletAddress: alice, receiver: intentId, receiveAmount: usd(value) } as never);
  const payment = await createPayment(mem.node, { walletAddress: alice, quoteId: quote.id } as never);
  await fundPayment(mem.node, payment.id);
  await runPaymentWorker(mem);
  return getPayment(mem.node, payment.id);
}
const balanced = async () => (await checkLedger(mem.node)).balanced;

describe('a payment intent held for approval', () => {
  it('racing an approval and a cancellation ends in one decision, its own event, and a 409 for the other', async () => {
    const held = await shop(true);
    const intents = await Promise.all([1, 2, 3, 4].map(() => intent(held)));
    for (const i of intents) expect(i.state).toBe('pending_approval');
    for (const i of intents) {
      const [approve, cancel] = await Promise.allSettled([approveIntent(mem.node, i.id), cancelIntent(mem.node, i.id, 'race')]);
      const outcomes = await Promise.all(
        [approve, cancel].map((r) => (r.status === 'fulfilled' ? '200' : refusal(Promise.reject(r.reason)).then((x) => x.split(' ')[0]))),
      );
      expect(outcomes.sort()).toEqual(['200', '409']);
      const state = approve.status === 'fulfilled' ? 'pending' : 'cancelled';
      expect((await getIntent(mem.node, i.id)).state).toBe(state);
      // Its events: its creation and the one decision that won.
      const types = eventsOf(mem.db)
        .filter((e) => e.data.id === i.id && e.type !== 'payment_intent.created')
        .map((e) => e.type);
      expect(types).toEqual([`payment_intent.${state === 'pending' ? 'approved' : 'cancelled'}`]);
    }
  });
});

describe('a payment intent closed short of its incomingAmount', () => {
  it('returned when it expires, by the expirer', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const expiresAt = new Date(Date.now() + 4_000).toISOString();
    const i = await intent(await shop(false), { incomingAmount: usd('1000'), expiresAt });
    const local = await funded(i.id, '300');
    expect(local.state).toBe('completed');
    vi.setSystemTime(Date.parse(expiresAt) + 1);
    expect((await getIntent(mem.node, i.id)).state).toBe('expired');
    expect(await expireDueIntents(mem.node)).toBeGreaterThanOrEqual(1);
    const told = eventsOf(mem.db, 'payment_intent.expired').find((e) => e.data.id === i.id);
    expect(told?.data.partialPayment).toEqual({ keptAmount: usd('0'), returnedAmount: usd('300'), returnedTo: [{ paymentId: local.id, amount: usd('300') }] });
    expect((await withdrawPayment(mem.node, local.id)).withdrawnAmount).toEqual(usd('300'));
    expect(await balanced()).toBe(true);
  });

  it('kept when the FSP withdrew it from the intent before it closed: nothing is returned twice', async () => {
    const i = await intent(await shop(false), { incomingAmount: usd('1000') });
    const local = await funded(i.id, '300');
    expect((await withdrawIntent(mem.node, i.id)).withdrawnAmount).toEqual(usd('300'));
    await completeIntent(mem.node, i.id);
    const done = await getIntent(mem.node, i.id);
    expect(done.partialPayment).toEqual({ keptAmount: usd('300'), returnedAmount: usd('0'), returnedTo: [] });
    expect((await withdrawPayment(mem.node, local.id)).withdrawnAmount).toEqual(usd('0'));
    expect(await balanced()).toBe(true);
  });
});
