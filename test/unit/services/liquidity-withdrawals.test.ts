import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsset, getAssetWithLiquidity, moveLiquidity } from '../../../lib/assets';
import { checkLedger } from '../../../lib/ledger-check';
import {
  expireDueWithdrawals,
  getWithdrawal,
  holdAssetLiquidity,
  holdPeerLiquidity,
  listPendingWithdrawals,
  postWithdrawal,
  voidWithdrawal,
} from '../../../lib/liquidity-withdrawals';
import { createPeer, deletePeer, getPeer, movePeerLiquidity } from '../../../lib/peers';
import { eventsOf, inMemory, ledgerOf, refusal } from '../../harness/in-memory';

// Two-phase withdrawals of asset and peer liquidity, their domain rules in memory: holding,
// posting, voiding, the timeout, racing endings, the list of what is held. What only the real stack
// shows (a held amount that a payment cannot spend, the Admin API's Idempotency-Key and bad input,
// contention on the ledger's shards, the expirer's schedule) is test/integration/liquidity-withdrawals.test.ts's.
const mem = inMemory({ ALLOW_PRIVATE_PEERS: 'operator' });
const units = (value: string | number | bigint) => BigInt(value) * 10n ** 18n; // scale 2 -> ledger scale 20

let usd: { id: string };
let eur: { id: string };
beforeEach(async () => {
  usd = await createAsset(mem.node, { code: 'USD', scale: 2 } as never);
  eur = await createAsset(mem.node, { code: 'EUR', scale: 2 } as never);
  await moveLiquidity(mem.node, eur.id, '100000000', 'deposit');
});

// Where a withdrawal is taken from: an asset's liquidity, or a USD peer's credit line.
type Source = {
  hold(amount: string, key?: string): ReturnType<typeof holdAssetLiquidity>;
  liquidity(): Promise<string>;
  withdraw(amount: string): Promise<unknown>;
};
const assetSource = (id: () => string): Source => ({
  hold: (amount, key) => holdAssetLiquidity(mem.node, id(), amount, key),
  liquidity: async () => (await getAssetWithLiquidity(mem.node, id())).liquidity.value,
  withdraw: (amount) => moveLiquidity(mem.node, id(), amount, 'withdrawal'),
});
let peers = 0;
async function peerWith(amount: string): Promise<Source & { id: string }> {
  const n = ++peers;
  const peer = await createPeer(mem.node, {
    staticIlpAddress: `test.withdrawal-peer-${n}`,
    assetCode: 'USD',
    http: {
      incoming: { authTokens: [`withdrawal-peer-incoming-token-${n}`] },
      outgoing: { authToken: `withdrawal-peer-outgoing-token-${n}`, endpoint: 'http://127.0.0.1:9/ilp' },
    },
  } as never);
  await movePeerLiquidity(mem.node, peer.id, amount, 'deposit');
  return {
    id: peer.id,
    hold: (a, key) => holdPeerLiquidity(mem.node, peer.id, a, key),
    liquidity: async () => (await getPeer(mem.node, peer.id)).liquidity.value,
    withdraw: (a) => movePeerLiquidity(mem.node, peer.id, a, 'withdrawal'),
  };
}

// Double entry, read from the table and as the ledger check sees it.
async function expectBalanced() {
  expect([...ledgerOf(mem.db).values()].reduce((a, b) => a + b, 0n)).toBe(0n);
  expect((await checkLedger(mem.node)).balanced).toBe(true);
}

describe('two-phase liquidity withdrawals', () => {
  it('hold the amount where no withdrawal can take it again; posted, it leaves to settlement', async () => {
    const source = assetSource(() => eur.id);
    const start = BigInt(await source.liquidity());
    const settlementBefore = ledgerOf(mem.db).get(`settlement:${eur.id}`) ?? 0n;
    const amount = (start - 50n).toString();
    const held = await source.hold(amount);
    expect(held).toEqual({
      id: expect.any(String),
      state: 'pending',
      assetId: eur.id,
      peerId: null,
      amount: { value: amount, assetCode: 'EUR', assetScale: 2 },
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(Date.parse(held.expiresAt) - Date.parse(held.createdAt)).toBe(7 * 24 * 3600 * 1000); // the default timeout
    expect(await getWithdrawal(mem.node, held.id)).toEqual(held);
    expect(await source.liquidity()).toBe('50');
    expect(ledgerOf(mem.db).get(`withdrawal:${held.id}:${eur.id}`)).toBe(units(amount));
    await expectBalanced();

    // Withdrawn again, in one step or two: refused.
    expect(await refusal(source.withdraw('51'))).toBe('422 insufficient_liquidity');
    expect(await refusal(source.hold('51'))).toBe('422 insufficient_liquidity');
    expect(await source.liquidity()).toBe('50');

    const posted = await postWithdrawal(mem.node, held.id);
    expect(posted).toEqual({ ...held, state: 'posted', postedAt: expect.any(String) });
    expect(await getWithdrawal(mem.node, held.id)).toEqual(posted);
    const after = ledgerOf(mem.db);
    expect(after.get(`withdrawal:${held.id}:${eur.id}`)).toBe(0n);
    expect(after.get(`settlement:${eur.id}`)! - settlementBefore).toBe(units(amount)); // it left the ledger
    expect(await source.liquidity()).toBe('50');
    await expectBalanced();
    expect(eventsOf(mem.db, 'liquidity_withdrawal.created').map((e) => e.data)).toEqual([held]);
    expect(eventsOf(mem.db, 'liquidity_withdrawal.posted').map((e) => e.data)).toEqual([posted]);
  });

  it("voided, a peer's withdrawal goes back to its credit line, which keeps the peer from deletion meanwhile; from a final state, post and void are 409", async () => {
    const peer = await peerWith('10000');
    const held = await peer.hold('4000');
    expect(held).toMatchObject({ state: 'pending', assetId: usd.id, peerId: peer.id, amount: { value: '4000', assetCode: 'USD', assetScale: 2 } });
    expect(await peer.liquidity()).toBe('6000');
    await expectBalanced();
    // All that is left withdrawn, the peer still cannot go: the withdrawal could be voided back to it.
    await peer.withdraw('6000');
    expect(await refusal(deletePeer(mem.node, peer.id))).toBe('409 peer_has_liquidity');
    await movePeerLiquidity(mem.node, peer.id, '6000', 'deposit');
    const voided = await voidWithdrawal(mem.node, held.id);
    expect(voided).toEqual({ ...held, state: 'voided', voidedAt: expect.any(String), voidedBy: 'request' });
    expect(await peer.liquidity()).toBe('10000');
    for (const step of [postWithdrawal, voidWithdrawal]) expect(await refusal(step(mem.node, held.id))).toBe('409 invalid_state');
    expect(await getWithdrawal(mem.node, held.id)).toEqual(voided);
    expect(await peer.liquidity()).toBe('10000');
    await expectBalanced();
    expect(eventsOf(mem.db, 'liquidity_withdrawal.voided').map((e) => e.data.voidedBy)).toEqual(['request']);
    // Ended, it no longer keeps the peer.
    await peer.withdraw('10000');
    await deletePeer(mem.node, peer.id);
  });

  it('racing posts and voids end in exactly one outcome, its money moved once', async () => {
    const peer = await peerWith('5000');
    for (let round = 0; round < 4; round++) {
      const settlementBefore = ledgerOf(mem.db).get(`settlement:${usd.id}`) ?? 0n;
      const start = BigInt(await peer.liquidity());
      const held = await peer.hold('1000');
      const steps = [postWithdrawal, voidWithdrawal, postWithdrawal, voidWithdrawal, voidWithdrawal, postWithdrawal];
      const answers = await Promise.allSettled(steps.map((step) => step(mem.node, held.id)));
      const won = answers.flatMap((a) => (a.status === 'fulfilled' ? [a.value] : []));
      expect(won.length).toBe(1);
      expect(await Promise.all(answers.flatMap((a) => (a.status === 'rejected' ? [refusal(Promise.reject(a.reason))] : [])))).toEqual(
        Array(5).fill('409 invalid_state'),
      );
      const final = await getWithdrawal(mem.node, held.id);
      expect(final).toEqual(won[0]);
      const posted = final.state === 'posted';
      expect(BigInt(await peer.liquidity())).toBe(posted ? start - 1000n : start);
      expect(ledgerOf(mem.db).get(`settlement:${usd.id}`)! - settlementBefore).toBe(posted ? units(1000) : 0n);
      await expectBalanced();
    }
  });

  it('held under an idempotency key, a retry answers the same withdrawal and holds nothing more', async () => {
    const source = assetSource(() => eur.id);
    const start = BigInt(await source.liquidity());
    const key = `hold-${randomUUID()}`;
    const first = await source.hold('300', key);
    expect(await source.hold('300', key)).toEqual(first);
    expect(BigInt(await source.liquidity())).toBe(start - 300n);
    await voidWithdrawal(mem.node, first.id);
    expect(BigInt(await source.liquidity())).toBe(start);
    await expectBalanced();
  });

  it('lists what is still held, newest first, a page at a time; a posted or voided withdrawal leaves the list', async () => {
    const peer = await peerWith('900');
    const held = [];
    // Each a millisecond after the last, as requests are: a list orders by creation time.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      for (const amount of ['100', '200', '300']) {
        held.push(await peer.hold(amount));
        vi.advanceTimersByTime(1);
      }
    } finally {
      vi.useRealTimers();
    }
    const first = await listPendingWithdrawals(mem.node, 2);
    expect(first.items).toEqual([held[2], held[1]]);
    const second = await listPendingWithdrawals(mem.node, 2, first.nextCursor!);
    expect(second).toEqual({ items: [held[0]], nextCursor: null });
    await postWithdrawal(mem.node, held[1].id);
    await voidWithdrawal(mem.node, held[2].id);
    expect(await listPendingWithdrawals(mem.node, 20)).toEqual({ items: [held[0]], nextCursor: null });
  });

  it('refuses what names nothing: an unknown withdrawal, asset or peer; a bad cursor', async () => {
    expect(await refusal(getWithdrawal(mem.node, randomUUID()))).toBe('404 liquidity_withdrawal_not_found');
    expect(await refusal(postWithdrawal(mem.node, randomUUID()))).toBe('404 liquidity_withdrawal_not_found');
    expect(await refusal(voidWithdrawal(mem.node, randomUUID()))).toBe('404 liquidity_withdrawal_not_found');
    expect(await refusal(holdAssetLiquidity(mem.node, randomUUID(), '100'))).toBe('404 asset_not_found');
    expect(await refusal(holdPeerLiquidity(mem.node, randomUUID(), '100'))).toBe('404 peer_not_found');
    expect(await refusal(assetSource(() => eur.id).hold('9'.repeat(12)))).toBe('422 insufficient_liquidity');
    expect(await refusal(listPendingWithdrawals(mem.node, 2, 'abc'))).toBe('400 invalid_cursor');
  });
});

// The timeout (LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS), here a second on a node of its own; the clock
// is moved past it rather than waited for.
describe('the timeout', () => {
  const node = { ...mem.node, liquidityWithdrawalTimeoutSecs: 1 };
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() }));
  afterEach(() => vi.useRealTimers());
  const pastTimeout = (held: { expiresAt: string }) => vi.setSystemTime(Date.parse(held.expiresAt) + 1);

  it('voids an unposted withdrawal exactly once, returning exactly its amount', async () => {
    const source = assetSource(() => eur.id);
    const peer = await peerWith('1000');
    const hold = (s: Source, amount: string) => (s === source ? holdAssetLiquidity(node, eur.id, amount) : holdPeerLiquidity(node, peer.id, amount));
    const [assetStart, peerStart] = [await source.liquidity(), await peer.liquidity()];
    const held = [await hold(source, '700'), await hold(peer, '400')];
    expect(await peer.liquidity()).toBe('600');
    expect(await expireDueWithdrawals(node)).toBe(0); // not yet
    pastTimeout(held[1]);
    expect(await expireDueWithdrawals(node)).toBe(2);
    const voided = await Promise.all(held.map((h) => getWithdrawal(node, h.id)));
    for (const [i, v] of voided.entries()) {
      expect(v).toEqual({ ...held[i], state: 'voided', voidedAt: expect.any(String), voidedBy: 'timeout' });
      expect(v.voidedAt! >= v.expiresAt).toBe(true);
    }
    expect([await source.liquidity(), await peer.liquidity()]).toEqual([assetStart, peerStart]);
    expect(await expireDueWithdrawals(node)).toBe(0); // nothing left to void
    const events = eventsOf(mem.db, 'liquidity_withdrawal.voided').filter((e) => held.some((h) => h.id === e.data.id));
    expect(events.map((e) => e.data.voidedBy)).toEqual(['timeout', 'timeout']);
    await expectBalanced();
  });

  it('a post after the timeout is 409: the withdrawal is voided, by the timeout, once, however the post, a void and the expirer race', async () => {
    const source = assetSource(() => eur.id);
    const start = await source.liquidity();
    for (let round = 0; round < 3; round++) {
      const held = await holdAssetLiquidity(node, eur.id, '250');
      pastTimeout(held);
      const [posted, voided] = await Promise.allSettled([
        postWithdrawal(node, held.id),
        round ? voidWithdrawal(node, held.id) : Promise.reject(new Error('no void this round')),
        expireDueWithdrawals(node),
        expireDueWithdrawals(node),
      ]);
      expect(await refusal(posted.status === 'rejected' ? Promise.reject(posted.reason) : Promise.resolve())).toBe('409 invalid_state');
      const final = await getWithdrawal(node, held.id);
      expect(final.state).toBe('voided');
      // A void that came first is the request's; else the timeout's.
      expect(final.voidedBy).toBe(voided.status === 'fulfilled' ? 'request' : 'timeout');
      expect(await source.liquidity()).toBe(start);
      await expectBalanced();
    }
  });
});
