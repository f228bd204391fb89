import { randomUUID } from 'node:crypto';
import { DeleteItemCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestStack } from '../harness/stack';
import { expectBalanced, hold, liquidityOf, peerWith, withdrawal } from '../harness/withdrawals';
import { ledger, ok, paymentIn, startPaymentsStack, units, type World } from '../harness/world';
import type { WebhookReceiver } from '../servers/webhook-receiver';

// Two-phase withdrawals of asset and peer liquidity, through the Admin API on the real stack, whose
// withdrawals time out after the default week. Their rules (voiding, the timeout, the list, racing
// endings) are test/unit/services/liquidity-withdrawals.test.ts's, in memory; here what only the
// stack shows: the wire, a held amount that a payment's worker cannot spend, the Admin API's
// Idempotency-Key, endings racing on DynamoDB's transactions, contention on the ledger's shards.
let s: TestStack;
let w: World;
let events: WebhookReceiver;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ s, w, events, stop } = await startPaymentsStack());
});
afterAll(() => stop());

describe('two-phase liquidity withdrawals', () => {
  it('hold the amount where no payment can spend it and no withdrawal take it again; posted, it leaves to settlement', async () => {
    const eur = `/assets/${w.eur.id}`;
    const start = BigInt(await liquidityOf(s, eur));
    const settlementBefore = (await ledger(s)).get(`settlement:${w.eur.id}`) ?? 0n;
    const amount = (start - 50n).toString();
    const held = await hold(s, eur, amount);
    expect(held).toEqual({
      id: expect.any(String),
      state: 'pending',
      assetId: w.eur.id,
      peerId: null,
      amount: { value: amount, assetCode: 'EUR', assetScale: 2 },
      expiresAt: expect.any(String),
      createdAt: expect.any(String),
    });
    expect(Date.parse(held.expiresAt) - Date.parse(held.createdAt)).toBe(7 * 24 * 3600 * 1000); // the default timeout
    expect(await withdrawal(s, held.id)).toEqual(held);
    expect(await ok(s.admin('GET', '/liquidity-withdrawals?limit=1'), 200)).toEqual({ items: [held], nextCursor: null }); // the first held here
    expect(await liquidityOf(s, eur)).toBe('50');
    expect((await ledger(s)).get(`withdrawal:${held.id}:${w.eur.id}`)).toBe(units(amount));
    await expectBalanced(s);

    // Withdrawn again, in one step or two: refused.
    for (const twoPhase of [false, true]) {
      const again = await s.admin('POST', `${eur}/liquidity-withdrawals`, { amount: '51', twoPhase });
      expect([again.status, again.body.code]).toEqual([422, 'insufficient_liquidity']);
    }
    // Spent by a payment that needs 1.00 EUR of it: the payment fails for want of liquidity.
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.carlos }));
    const quote = await ok(
      s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id, receiveAmount: { value: '100', assetCode: 'EUR', assetScale: 2 } }),
    );
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    await ok(s.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect((await paymentIn(s, payment.id, ['failed'])).failureReason).toBe('insufficient_liquidity');
    expect(await liquidityOf(s, eur)).toBe('50');

    const posted = await ok(s.admin('POST', `/liquidity-withdrawals/${held.id}/post`), 200);
    expect(posted).toEqual({ ...held, state: 'posted', postedAt: expect.any(String) });
    expect(await withdrawal(s, held.id)).toEqual(posted);
    const after = await ledger(s);
    expect(after.get(`withdrawal:${held.id}:${w.eur.id}`)).toBe(0n);
    expect(after.get(`settlement:${w.eur.id}`)! - settlementBefore).toBe(units(amount)); // it left the ledger
    expect(await liquidityOf(s, eur)).toBe('50');
    await expectBalanced(s);
    await events.waitForEvent('liquidity_withdrawal.created', (d) => d.id === held.id && d.state === 'pending');
    await events.waitForEvent('liquidity_withdrawal.posted', (d) => d.id === held.id && d.state === 'posted');
  });

  it('racing posts and voids end in exactly one outcome, its money moved once', async () => {
    const peer = await peerWith(s, '5000');
    for (let round = 0; round < 4; round++) {
      const settlementBefore = (await ledger(s)).get(`settlement:${w.usd.id}`) ?? 0n;
      const start = BigInt(await liquidityOf(s, peer));
      const held = await hold(s, peer, '1000');
      const steps = ['post', 'void', 'post', 'void', 'void', 'post'];
      const answers = await Promise.all(
        steps.map((step, i) => s.admin('POST', `/liquidity-withdrawals/${held.id}/${step}`, undefined, { 'Idempotency-Key': `race-${held.id}-${i}` })),
      );
      const won = answers.filter((a) => a.status === 200);
      expect(won.length, JSON.stringify(answers.map((a) => a.body))).toBe(1);
      expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.body.code}`)).toEqual(Array(5).fill('409 invalid_state'));
      const final = await withdrawal(s, held.id);
      expect(final).toEqual(won[0].body);
      const posted = final.state === 'posted';
      expect(BigInt(await liquidityOf(s, peer))).toBe(posted ? start - 1000n : start);
      expect((await ledger(s)).get(`settlement:${w.usd.id}`)! - settlementBefore).toBe(posted ? units(1000) : 0n);
      await expectBalanced(s);
    }
  });

  it('an Idempotency-Key holds once: a retry answers the same withdrawal, even once the stored answer is gone; another body is 422', async () => {
    const eur = `/assets/${w.eur.id}`;
    await ok(s.admin('POST', `${eur}/liquidity`, { amount: '10000' }), 200);
    const start = BigInt(await liquidityOf(s, eur));
    const key = { 'Idempotency-Key': `hold-${randomUUID()}` };
    const first = await hold(s, eur, '300', key);
    expect(await hold(s, eur, '300', key)).toEqual(first);
    // The stored answer lost (a crash after the commit, before it was stored): the retry still finds
    // the withdrawal it made, by the id the key gives it, and holds nothing more.
    const stored = await s.dynamo.send(new ScanCommand({ TableName: s.env.IDEMPOTENCY_TABLE }));
    for (const item of stored.Items ?? []) await s.dynamo.send(new DeleteItemCommand({ TableName: s.env.IDEMPOTENCY_TABLE, Key: { id: item.id } }));
    expect(await hold(s, eur, '300', key)).toEqual(first);
    expect(BigInt(await liquidityOf(s, eur))).toBe(start - 300n);
    const reused = await s.admin('POST', `${eur}/liquidity-withdrawals`, { amount: '301', twoPhase: true }, key);
    expect([reused.status, reused.body.code]).toEqual([422, 'idempotency_key_reused']);
    expect(await hold(s, eur, '300', key)).toEqual(first);
    expect(BigInt(await liquidityOf(s, eur))).toBe(start - 300n);
    await ok(s.admin('POST', `/liquidity-withdrawals/${first.id}/void`), 200);
    expect(BigInt(await liquidityOf(s, eur))).toBe(start);
    await expectBalanced(s);
  });

  it("runs the timeout's scheduled function, which voids nothing before a withdrawal is due", async () => {
    expect(await s.invoke('liquidityWithdrawalsExpire')).toBe(0);
  });

  it('refuses bad input with a problem and changes nothing', async () => {
    const eur = `/assets/${w.eur.id}`;
    const pending = await hold(s, eur, '100');
    const before = await ledger(s);
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', `${eur}/liquidity-withdrawals`, { amount: '100', twoPhase: 'yes' }, 400, 'invalid_request'],
      ['POST', `${eur}/liquidity-withdrawals`, { amount: '0', twoPhase: true }, 400, 'invalid_request'],
      ['POST', `${eur}/liquidity-withdrawals`, { amount: '1.5', twoPhase: true }, 400, 'invalid_request'],
      ['POST', `${eur}/liquidity-withdrawals`, { amount: '100', twoPhase: true, timeout: 5 }, 400, 'invalid_request'],
      ['POST', `${eur}/liquidity-withdrawals`, { amount: '9'.repeat(12), twoPhase: true }, 422, 'insufficient_liquidity'],
      ['POST', `/assets/${randomUUID()}/liquidity-withdrawals`, { amount: '100', twoPhase: true }, 404, 'asset_not_found'],
      ['POST', `/peers/${randomUUID()}/liquidity-withdrawals`, { amount: '100', twoPhase: true }, 404, 'peer_not_found'],
      ['GET', `/liquidity-withdrawals/${randomUUID()}`, undefined, 404, 'liquidity_withdrawal_not_found'],
      ['GET', '/liquidity-withdrawals?cursor=abc', undefined, 400, 'invalid_cursor'],
      ['GET', '/liquidity-withdrawals?state=pending', undefined, 400, 'invalid_request'],
      ['POST', `/liquidity-withdrawals/${randomUUID()}/post`, undefined, 404, 'liquidity_withdrawal_not_found'],
      ['POST', `/liquidity-withdrawals/${randomUUID()}/void`, undefined, 404, 'liquidity_withdrawal_not_found'],
      ['POST', '/liquidity-withdrawals/not-an-id/post', undefined, 404, 'not_found'],
      ['POST', `/liquidity-withdrawals/${pending.id}/post`, { amount: '1' }, 400, 'invalid_request'],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await s.admin(method, path, body);
      expect([method, path, res.status, res.body.code, res.headers.get('content-type')]).toEqual([method, path, status, code, 'application/problem+json']);
    }
    expect(await ledger(s)).toEqual(before);
    expect(await withdrawal(s, pending.id)).toEqual(pending);
  });
});

// A one-step withdrawal is refused only when the balance does not cover it: 30 at once, summing
// under the liquidity, each take from the shards they read, which the others take from meanwhile
// (a deposit spreads the liquidity over 16 shards, each holding less than two of them).
describe('one-step withdrawals under contention', () => {
  const ROUNDS = 10;
  const AT_ONCE = 30;
  it(`${AT_ONCE} at once, summing under the liquidity, all succeed (${ROUNDS} rounds); one over the balance is still 422`, async () => {
    const peer = await peerWith(s, '1');
    const asset = `/assets/${w.usd.id}`;
    for (let round = 0; round < ROUNDS; round++) {
      const path = round % 2 ? peer : asset;
      await ok(s.admin('POST', `${path}/liquidity`, { amount: String(AT_ONCE * 100 + 50) }), 200);
      const start = BigInt(await liquidityOf(s, path));
      const answers = await Promise.all(Array.from({ length: AT_ONCE }, () => s.admin('POST', `${path}/liquidity-withdrawals`, { amount: '100' })));
      expect(
        answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.body.code}`),
        `round ${round}`,
      ).toEqual([]);
      expect(BigInt(await liquidityOf(s, path))).toBe(start - BigInt(AT_ONCE * 100));
      await expectBalanced(s);
    }
    for (const path of [asset, peer]) {
      const left = BigInt(await liquidityOf(s, path));
      const over = await s.admin('POST', `${path}/liquidity-withdrawals`, { amount: String(left + 1n) });
      expect([over.status, over.body.code]).toEqual([422, 'insufficient_liquidity']);
      expect(BigInt(await liquidityOf(s, path))).toBe(left);
    }
    await expectBalanced(s);
  });
});
