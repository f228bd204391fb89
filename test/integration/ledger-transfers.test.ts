import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, paymentIn } from '../harness/world';
import { expectHistorySumsTo } from '../readers/transfers';

// GET /ledger/transfers: each account's transfers, on two nodes of ours (A pays B over
// Interledger), after packets sent and received with a fee on each side, a peer's deposit and
// withdrawal: every account's transfers sum to its balance. Local payments in one currency and
// across two, an asset's deposits and withdrawals, and the 404 of an account of no record are
// tested in memory: test/unit/services/ledger-transfers.test.ts.
let a: TestStack;
let b: OtherNode;
const onA = { usd: '', alice: '', peer: '' };
const onB = { usd: '', dave: '', peer: '' };

beforeAll(async () => {
  [a, b] = await Promise.all([startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a' }), startOtherNode({ ILP_ADDRESS: 'test.node-b' })]);
  onA.usd = (await ok(a.admin('POST', '/assets', { code: 'USD', scale: 2 }))).id;
  onB.usd = (await ok(b.admin('POST', '/assets', { code: 'USD', scale: 2 }))).id;
  const wallet = async (node: TestStack | OtherNode, name: string, assetCode: string) =>
    (await ok(node.admin('POST', '/wallet-addresses', { address: `${node.openPaymentsUrl}/${name}`, assetCode }))).address as string;
  onA.alice = await wallet(a, 'alice', 'USD');
  onB.dave = await wallet(b, 'dave', 'USD');
  const { peerOfA, peerOfB } = await peerBothWays(a, b);
  [onA.peer, onB.peer] = [peerOfA.id, peerOfB.id];
  await ok(b.admin('POST', `/peers/${onB.peer}/liquidity`, { amount: '100000' }), 200);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

// A payment from alice on A to an intent on `node`, funded, waited for.
async function pay(node: TestStack | OtherNode, to: string, value: string, assetCode: string) {
  const intent = await ok(node.admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { value, assetCode, assetScale: 2 } }));
  const quote = await ok(a.admin('POST', '/quotes', { walletAddress: onA.alice, receiver: intent.url }));
  const payment = await ok(a.admin('POST', '/payments', { walletAddress: onA.alice, quoteId: quote.id }));
  await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
  expect(await paymentIn(a, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed' });
  return { intent, payment };
}

// Every page of an account's history, three transfers a page (so that a split account's pages
// merge its partitions across cursors).
async function history(node: TestStack | OtherNode, account: string) {
  const items: any[] = [];
  let cursor: string | null = null;
  do {
    const page: any = await ok(node.admin('GET', `/ledger/transfers?account=${account}&limit=3${cursor ? `&cursor=${cursor}` : ''}`), 200);
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

describe('GET /ledger/transfers', () => {
  it("lists every account's transfers, newest first, and they sum to its balance, after packets, fees, a deposit and a withdrawal", async () => {
    // Fees: A's USD charges senders 0.10 + 1%, B's USD takes 0.05 from what its intents receive.
    await ok(a.admin('PATCH', `/assets/${onA.usd}`, { sendingFee: { fixed: '10', basisPoints: 100 } }), 200);
    await ok(b.admin('PATCH', `/assets/${onB.usd}`, { receivingFee: { fixed: '5', basisPoints: 0 } }), 200);
    const remote = await pay(b, onB.dave, '700', 'USD');
    await ok(b.admin('POST', `/peers/${onB.peer}/liquidity-withdrawals`, { amount: '3000' }), 200);

    for (const [node, balances] of [
      [a, await ledger(a)],
      [b, await ledger({ dynamo: a.dynamo, env: b.env })],
    ] as const) {
      expect(balances.size).toBeGreaterThanOrEqual(3);
      expect([...balances.keys()]).toContain(node === a ? `fee:${onA.usd}` : `fee:${onB.usd}`);
      for (const [account, balance] of balances) expectHistorySumsTo(account, await history(node, account), balance);
    }

    // The packets: sent under A's payment, received under B's intent, through each one's peer.
    const sent = await history(a, `peer:${onA.peer}`);
    expect(sent.length).toBeGreaterThan(0);
    for (const t of sent) expect(t).toMatchObject({ kind: 'packet', resource: { type: 'payment', id: remote.payment.id }, direction: 'credit' });
    const received = await history(b, `intent:${remote.intent.id}`);
    for (const t of received)
      expect(t).toMatchObject({ kind: 'packet', resource: { type: 'payment_intent', id: remote.intent.id }, debitAccount: `peer:${onB.peer}` });
    expect(received.reduce((sum, t) => sum + BigInt(t.amount.value), 0n)).toBe(695n); // 7.00 paid, 0.05 kept as B's fee
    // The fees: A's sending fee booked at the completion of the payment over Interledger (its own
    // transfer; a local delivery's is a leg of it); B's receiving fee a leg of a packet.
    expect((await history(a, `fee:${onA.usd}`)).map((t) => [t.kind, t.direction, t.resource.id])).toEqual([['fee', 'credit', remote.payment.id]]);
    expect((await history(b, `fee:${onB.usd}`)).map((t) => [t.kind, t.direction, t.amount.value, t.resource.id])).toEqual([
      ['packet', 'credit', '5', remote.intent.id],
    ]);
    expect((await history(b, `peer:${onB.peer}`)).at(-1)).toMatchObject({ kind: 'deposit', resource: { type: 'peer', id: onB.peer }, direction: 'credit' });
  });

  it('refuses an account that is missing or malformed (400)', async () => {
    for (const query of ['', '?account=', '?account=settlement', `?account=wallet:${randomUUID()}`, `?account=payment:${randomUUID()}x`]) {
      const res = await a.admin('GET', `/ledger/transfers${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code, query).toBe('invalid_request');
    }
  });
});
