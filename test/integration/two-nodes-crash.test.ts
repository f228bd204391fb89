import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeProcess, peerBothWays, startNodeProcess } from '../node';
import { startTestStack, type TestStack } from '../stack';
import { ledger, ok, packetsOf, paymentIn, sum, units, waitFor } from '../world';

// Interledger's rule for packets that get no answer: the sender owes a packet only when its
// fulfillment reaches it before expiry. Node A pays Node B in tiny packets; B (a process of its
// own) is killed with SIGKILL mid-way and started again. Afterwards no payment is `completed` on A
// while its intent on B is short, and the two nodes' books of each other agree but for the
// packets whose fulfillment was lost in the crash, each of which A lists for reconciliation.
let a: TestStack;
let b: NodeProcess;
let alice: string;
let bob: string;
let peerOfA: { id: string }; // A's peer: B
let peerOfB: { id: string }; // B's peer: A
const PAYMENTS = 20;

beforeAll(async () => {
  [a, b] = await Promise.all([startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a' }), startNodeProcess({ ILP_ADDRESS: 'test.node-b' })]);
  for (const node of [a, b]) await ok(node.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  alice = (await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
  bob = (await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/bob`, assetCode: 'USD' }))).address;
  ({ peerOfA, peerOfB } = await peerBothWays(a, b, { maxPacketAmount: '9' /* tiny packets: many in flight when B dies */ }));
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

// Whether B credited a packet (its receive transfer's id is the packet's condition).
const creditedOnB = async (condition: string) =>
  (
    await a.dynamo.send(
      new GetItemCommand({
        TableName: b.env.MAIN_TABLE,
        Key: { pk: { S: `XFER#ilp:${peerOfB.id}:${condition}` }, sk: { S: 'XFER' } },
        ProjectionExpression: 'pk',
      }),
    )
  ).Item !== undefined;

describe('a crash of the receiving node', () => {
  it('leaves no payment completed on A whose intent on B is short, and books that agree but for lost fulfillments', async () => {
    const startedAt = new Date().toISOString();
    const flows: Array<{ intent: any; payment: any }> = [];
    for (let i = 0; i < PAYMENTS; i += 5) {
      const batch = Array.from({ length: Math.min(5, PAYMENTS - i) }, async (_, j) => {
        const incomingAmount = { value: String(60 + i + j), assetCode: 'USD', assetScale: 2 };
        const intent = await ok(b.admin('POST', '/payment-intents', { walletAddress: bob, incomingAmount }));
        const quote = await ok(a.admin('POST', '/quotes', { walletAddress: alice, receiver: intent.url }));
        return { intent, payment: await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id })) };
      });
      flows.push(...(await Promise.all(batch)));
    }
    const bBefore = (await ledger({ dynamo: a.dynamo, env: b.env })).get(`peer:${peerOfB.id}`)!;
    await Promise.all(flows.map((f) => ok(a.admin('POST', `/payments/${f.payment.id}/fund`), 200)));
    // Once packets flow, B dies as a crash would, and comes back two seconds later.
    await waitFor(
      'packets to flow',
      async () => {
        const paid = (await Promise.all(flows.map((f) => packetsOf(a, f.payment.id)))).flat().filter((k) => k.state === 'fulfilled');
        return paid.length >= 10 ? true : undefined;
      },
      30_000,
    );
    await b.crash();
    await new Promise((r) => setTimeout(r, 2000));
    await b.restart();

    const done = await Promise.all(flows.map((f) => paymentIn(a, f.payment.id, ['completed', 'failed'], 90_000)));
    for (const [i, f] of flows.entries()) {
      const intent = await ok(b.admin('GET', `/payment-intents/${f.intent.id}`), 200);
      expect(BigInt(intent.receivedAmount.value)).toBeLessThanOrEqual(BigInt(intent.incomingAmount.value)); // never over-paid
      if (done[i].state === 'completed') expect(intent, `payment ${f.payment.id}`).toMatchObject({ state: 'completed', receivedAmount: intent.incomingAmount });
    }

    // A's books: what it sent B (its peer account's growth); B's: what it took from A.
    const aSent = (await ledger(a)).get(`peer:${peerOfA.id}`) ?? 0n;
    const bBooks = await ledger({ dynamo: a.dynamo, env: b.env });
    const bTook = bBefore - bBooks.get(`peer:${peerOfB.id}`)!;
    const packets = (await Promise.all(flows.map((f) => packetsOf(a, f.payment.id)))).flat();
    expect(packets.filter((k) => k.state === 'pending')).toEqual([]);
    const unpaid = packets.filter((k) => k.state !== 'fulfilled' && k.state !== 'rejected');
    const lost = [];
    for (const k of unpaid) if (await creditedOnB(k.id)) lost.push(k);
    const lostUnits = lost.reduce((t, k) => t + k.peerUnits, 0n);
    expect(bTook - aSent).toBe(lostUnits); // B bears exactly the fulfillments lost in flight
    expect(unpaid.every((k) => k.state === 'unanswered')).toBe(true);

    // A lists every unanswered packet for reconciliation with B, the lost fulfillments among them.
    const listed: any[] = [];
    let cursor: string | null = null;
    let total: any;
    do {
      const page: any = await ok(
        a.admin('GET', `/peers/${peerOfA.id}/reconciliation?from=${encodeURIComponent(startedAt)}&limit=25${cursor ? `&cursor=${cursor}` : ''}`),
        200,
      );
      listed.push(...page.items);
      total = page.total;
      cursor = page.nextCursor;
    } while (cursor);
    expect(listed.map((k) => k.executionCondition).sort()).toEqual(unpaid.map((k) => k.id).sort());
    expect(total).toEqual({
      count: unpaid.length,
      amount: { value: String(unpaid.reduce((t, k) => t + k.peerUnits, 0n) / units(1)), assetCode: 'USD', assetScale: 2 },
    });
    const byPayment = new Map(flows.map((f) => [f.payment.id, f]));
    for (const k of listed) {
      expect(byPayment.has(k.paymentId)).toBe(true);
      expect(k.paymentAmount).toEqual(k.amount); // same asset on both sides here
    }
    expect(sum(await ledger(a))).toBe(0n);
    expect(sum(bBooks)).toBe(0n);
  }, 150_000);
});
