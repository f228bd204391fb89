import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../harness/stack';
import { expectBalanced, hold, liquidityOf, peerWith, withdrawal } from '../harness/withdrawals';
import { startPaymentsStack, type World, waitFor } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// The timeout of two-phase withdrawals (LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS), 1 s on this stack: the
// tests run the expirer (the scheduled function) until what they wait for has happened.
let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack({ settings: { LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS: '1' } }));
});
afterAll(() => stop());

const expire = () => s.invoke('liquidityWithdrawalsExpire') as Promise<number>;

describe('the timeout (LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS)', () => {
  it('voids an unposted withdrawal exactly once, returning exactly its amount', async () => {
    const eur = `/assets/${w.eur.id}`;
    const peer = await peerWith(s, '1000');
    const [assetStart, peerStart] = [await liquidityOf(s, eur), await liquidityOf(s, peer)];
    const held = [await hold(s, eur, '700'), await hold(s, peer, '400')];
    expect(await liquidityOf(s, peer)).toBe('600');
    const voided = await waitFor('both withdrawals voided by the timeout', async () => {
      await expire();
      const now = await Promise.all(held.map((h) => withdrawal(s, h.id)));
      return now.every((v) => v.state === 'voided') ? now : undefined;
    });
    for (const [i, v] of voided.entries()) {
      expect(v).toEqual({ ...held[i], state: 'voided', voidedAt: expect.any(String), voidedBy: 'timeout' });
      expect(v.voidedAt >= v.expiresAt).toBe(true);
    }
    expect([await liquidityOf(s, eur), await liquidityOf(s, peer)]).toEqual([assetStart, peerStart]);
    expect(await expire()).toBe(0); // nothing left to void
    for (const h of held) {
      const event = await events.waitForEvent('liquidity_withdrawal.voided', (d) => d.id === h.id);
      expect(event.data.voidedBy).toBe('timeout');
    }
    expect(events.seen.filter((e) => e.type === 'liquidity_withdrawal.voided' && held.some((h) => h.id === e.data.id)).length).toBe(2);
    await expectBalanced(s);
  });

  it('a post after the timeout is 409: the withdrawal is voided, by the timeout, once, however the post, a void and the expirer race', async () => {
    const eur = `/assets/${w.eur.id}`;
    const start = await liquidityOf(s, eur);
    for (let round = 0; round < 3; round++) {
      const held = await hold(s, eur, '250');
      await waitFor('the withdrawal past its timeout', async () => (Date.now() > Date.parse(held.expiresAt) ? true : undefined));
      const [posted, voided] = await Promise.all([
        s.admin('POST', `/liquidity-withdrawals/${held.id}/post`),
        round ? s.admin('POST', `/liquidity-withdrawals/${held.id}/void`) : undefined,
        expire(),
        expire(),
      ]);
      expect([posted.status, posted.body.code]).toEqual([409, 'invalid_state']);
      const final = await withdrawal(s, held.id);
      expect(final.state).toBe('voided');
      // A void that came first is the request's; else the timeout's.
      expect(final.voidedBy).toBe(voided?.status === 200 ? 'request' : 'timeout');
      expect(await liquidityOf(s, eur)).toBe(start);
      await expectBalanced(s);
    }
  });
});
