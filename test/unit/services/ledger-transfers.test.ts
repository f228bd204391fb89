import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { moveLiquidity, updateAsset } from '../../../lib/assets';
import { listTransfers } from '../../../lib/ledger-check/transfers';
import { createIntent, withdrawIntent } from '../../../lib/payment-intents';
import { createPayment, fundPayment, getPayment } from '../../../lib/payments';
import { createQuote } from '../../../lib/payments/methods/quote';
import { createPeer, movePeerLiquidity } from '../../../lib/peers';
import { inMemory, ledgerOf, memoryWorld, refusal, runPaymentWorker } from '../../harness/in-memory';
import { expectHistorySumsTo } from '../../readers/transfers';

// An account's transfers (GET /ledger/transfers) in memory, after local payments in one currency
// and across two, a sending fee, deposits and withdrawals of an asset's and a peer's liquidity:
// every account's transfers, page by page, sum to its balance. Packets over Interledger between two
// nodes, a receiving fee taken from a packet, and the route's validation (400) are
// test/integration/ledger-transfers.test.ts's.
const mem = inMemory({ ALLOW_PRIVATE_PEERS: 'operator' }, { fresh: 'file' });
let w: Awaited<ReturnType<typeof memoryWorld>>;
beforeAll(async () => {
  w = await memoryWorld(mem);
});

// Each step a millisecond after the last, as requests are: a history orders by creation time.
const later = () => vi.advanceTimersByTime(1);
// A payment from alice to an intent of `value` on `to`, funded and delivered.
async function pay(to: string, value: string, assetCode: string) {
  const intent = await createIntent(mem.node, { walletAddress: to, incomingAmount: { value, assetCode, assetScale: 2 } } as never);
  const quote = await createQuote(mem.node, { walletAddress: w.alice, receiver: intent.id } as never);
  const payment = await createPayment(mem.node, { walletAddress: w.alice, quoteId: quote.id } as never);
  later();
  await fundPayment(mem.node, payment.id);
  later();
  await runPaymentWorker(mem);
  later();
  expect(await getPayment(mem.node, payment.id)).toMatchObject({ state: 'completed' });
  return { intent, payment };
}

// Every page of an account's history, three transfers a page (so that a split account's pages
// merge its partitions across cursors).
async function history(account: string) {
  const items: Awaited<ReturnType<typeof listTransfers>>['items'] = [];
  let cursor: string | undefined;
  do {
    const page = await listTransfers(mem.node, account, 3, cursor);
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

describe("an account's transfers", () => {
  it('list every transfer, newest first, and sum to its balance, after payments, a fee, deposits and withdrawals', async () => {
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      const peer = await createPeer(mem.node, {
        staticIlpAddress: 'test.transfers-peer',
        assetCode: 'USD',
        http: {
          incoming: { authTokens: ['transfers-peer-incoming-token'] },
          outgoing: { authToken: 'transfers-peer-outgoing-token', endpoint: 'http://127.0.0.1:9/ilp' },
        },
      } as never);
      await movePeerLiquidity(mem.node, peer.id, '100000', 'deposit');
      later();
      const local = await pay(w.bob, '1200', 'USD');
      // A sending fee from here on: USD charges senders 0.10 + 1%.
      await updateAsset(mem.node, w.usd.id, { sendingFee: { fixed: '10', basisPoints: 100 } } as never);
      const cross = await pay(w.carlos, '900', 'EUR');
      await withdrawIntent(mem.node, local.intent.id);
      later();
      await moveLiquidity(mem.node, w.eur.id, '5000', 'withdrawal');
      later();
      await movePeerLiquidity(mem.node, peer.id, '3000', 'withdrawal');

      const balances = ledgerOf(mem.db);
      expect(balances.size).toBeGreaterThanOrEqual(3);
      expect([...balances.keys()]).toContain(`fee:${w.usd.id}`);
      for (const [account, balance] of balances) expectHistorySumsTo(account, await history(account), balance);

      // What each says: the funding of a payment, at its asset's scale and in ledger units.
      const usdPayment = await history(`payment:${local.payment.id}`);
      expect(usdPayment.map((t) => [t.kind, t.direction])).toEqual([
        ['payment', 'debit'],
        ['funding', 'credit'],
      ]);
      expect(usdPayment[1]).toMatchObject({
        id: `fund:${local.payment.id}`,
        resource: { type: 'payment', id: local.payment.id },
        amount: { value: '1200', assetCode: 'USD', assetScale: 2 },
        units: `1200${'0'.repeat(18)}`,
        debitAccount: `settlement:${w.usd.id}`,
        creditAccount: `payment:${local.payment.id}`,
      });
      // Across currencies the delivery's legs go to each asset's liquidity: EUR's pays carlos's intent.
      expect((await history(`liquidity:${w.eur.id}`)).map((t) => [t.kind, t.direction, t.amount.value, t.resource.id])).toEqual([
        ['withdrawal', 'debit', '5000', w.eur.id],
        ['payment', 'debit', '900', cross.payment.id],
        ['deposit', 'credit', '100000000', w.eur.id],
      ]);
      // The sending fee of a local payment is a leg of its delivery.
      expect((await history(`fee:${w.usd.id}`)).map((t) => [t.kind, t.direction, t.resource.id])).toEqual([['payment', 'credit', cross.payment.id]]);
      expect((await history(`peer:${peer.id}`)).map((t) => [t.kind, t.direction, t.amount.value, t.resource])).toEqual([
        ['withdrawal', 'debit', '3000', { type: 'peer', id: peer.id }],
        ['deposit', 'credit', '100000', { type: 'peer', id: peer.id }],
      ]);
      await updateAsset(mem.node, w.usd.id, { sendingFee: null } as never);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses an account of no record (404 account_not_found); one that has moved nothing yet is an empty page', async () => {
    for (const account of [`payment:${randomUUID()}`, `settlement:${randomUUID()}`, `peer:${randomUUID()}`, `hold:${randomUUID()}:${w.usd.id}`]) {
      expect(await refusal(listTransfers(mem.node, account, 20)), account).toBe('404 account_not_found');
    }
    const intent = await createIntent(mem.node, { walletAddress: w.bob } as never);
    expect(await listTransfers(mem.node, `intent:${intent.id}`, 20)).toEqual({ items: [], nextCursor: null });
  });
});
