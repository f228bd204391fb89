import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type NodeProcess, type NpmNode, peerBothWays, startNodeProcess, startNpmNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, packetsFulfilled, packetsOf, paymentsIn, reconciliationOf, sum, transferMoved, units, waitFor } from '../harness/world';

// Interledger's rule for packets that get no answer: the sender owes a packet only when its
// fulfillment reaches it before expiry. Node A pays Node B in tiny packets; B (a process of its
// own) is killed with SIGKILL mid-way and started again. Afterwards no payment is `completed` on A
// while its intent on B is short, and the two nodes' books of each other agree but for the
// packets whose fulfillment was lost in the crash, each of which A lists for reconciliation. Then
// the other way: a sending node (as `npm start` runs it) is killed with kill -9 mid-way and
// started again; the books differ by exactly the packets its reconciliation listing names that
// the receiver credited.
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
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

// Whether a node credited a packet from a peer (its receive transfer, named by the condition).
const credited = (node: Pick<TestStack, 'env'>, peerId: string, condition: string) =>
  transferMoved({ dynamo: a.dynamo, env: node.env }, `ilp:${peerId}:${condition}`);
const reconciliation = reconciliationOf;

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
    await packetsFulfilled(
      a,
      flows.map((f) => f.payment.id),
      10,
    );
    await b.crash();
    await new Promise((r) => setTimeout(r, 2000));
    await b.restart();

    const done = await paymentsIn(
      a,
      flows.map((f) => f.payment.id),
      ['completed', 'failed'],
      240_000,
    );
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
    for (const k of unpaid) if (await credited(b, peerOfB.id, k.id)) lost.push(k);
    const lostUnits = lost.reduce((t, k) => t + k.peerUnits, 0n);
    expect(bTook - aSent).toBe(lostUnits); // B bears exactly the fulfillments lost in flight
    expect(unpaid.every((k) => k.state === 'unanswered')).toBe(true);

    // A lists every unanswered packet for reconciliation with B, the lost fulfillments among them.
    const { items: listed, total } = await reconciliation(a, peerOfA.id, startedAt);
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
  });
});

describe('a crash of the sending node', () => {
  it('leaves books that differ by exactly the packets its reconciliation listing names that the receiver credited', async () => {
    // C: a node as npm start runs it (its own emulators, its data kept), paying intents on A.
    const env = { ILP_ADDRESS: 'test.node-c', FSP_AUTO_FUND: 'false', QUOTE_LIFETIME_SECS: '3600' };
    const C_TO_A = 'node-c-to-node-a-token-0123456789';
    const A_TO_C = 'node-a-to-node-c-token-0123456789';
    let c: NpmNode | undefined = await startNpmNode('start', { env });
    try {
      const first = c;
      await ok(first.admin('POST', '/assets', { code: 'USD', scale: 2 }));
      const carol = (await ok(first.admin('POST', '/wallet-addresses', { address: `${first.wallets}/carol`, assetCode: 'USD' }))).address;
      const dave = (await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/dave`, assetCode: 'USD' }))).address;
      const peerOfC = await ok(
        first.admin('POST', '/peers', {
          staticIlpAddress: 'test.node-a',
          assetCode: 'USD',
          maxPacketAmount: '9', // tiny packets: many in flight when C dies
          http: { incoming: { authTokens: [A_TO_C] }, outgoing: { authToken: C_TO_A, endpoint: a.connectorUrl } },
        }),
      );
      const cOnA = await ok(
        a.admin('POST', '/peers', {
          staticIlpAddress: 'test.node-c',
          assetCode: 'USD',
          http: { incoming: { authTokens: [C_TO_A] }, outgoing: { authToken: A_TO_C, endpoint: first.connector } },
        }),
      );
      await ok(a.admin('POST', `/peers/${cOnA.id}/liquidity`, { amount: '1000000' }), 200);
      const startedAt = new Date().toISOString();
      const flows: Array<{ intent: any; payment: any }> = [];
      for (let i = 0; i < PAYMENTS; i += 5) {
        const batch = Array.from({ length: Math.min(5, PAYMENTS - i) }, async (_, j) => {
          // Every other intent is open: only the sender bounds what it takes.
          const value = String(60 + i + j);
          const intent = await ok(
            a.admin('POST', '/payment-intents', {
              walletAddress: dave,
              ...((i + j) % 2 ? {} : { incomingAmount: { value, assetCode: 'USD', assetScale: 2 } }),
            }),
          );
          const quote = await ok(
            first.admin('POST', '/quotes', {
              walletAddress: carol,
              receiver: intent.url,
              ...((i + j) % 2 ? { receiveAmount: { value, assetCode: 'USD', assetScale: 2 } } : {}),
            }),
          );
          return { intent, payment: await ok(first.admin('POST', '/payments', { walletAddress: carol, quoteId: quote.id })) };
        });
        flows.push(...(await Promise.all(batch)));
      }
      const peerLiquidity = async (node: Pick<TestStack, 'admin'>, id: string) => BigInt((await ok(node.admin('GET', `/peers/${id}`), 200)).liquidity.value);
      const [cBefore, aBefore] = [await peerLiquidity(first, peerOfC.id), await peerLiquidity(a, cOnA.id)];
      await Promise.all(flows.map((f) => ok(first.admin('POST', `/payments/${f.payment.id}/fund`), 200)));
      // Once A has taken some packets, C dies with everything it had in flight.
      await waitFor('packets to flow', async () => ((await peerLiquidity(a, cOnA.id)) <= aBefore - 100n ? true : undefined), 30_000);
      await first.kill();
      c = undefined;
      c = await startNpmNode('start', { env, ports: first.ports, dataDir: first.dataDir });
      const second = c;
      const done = await paymentsIn(
        second,
        flows.map((f) => f.payment.id),
        ['completed', 'failed'],
        120_000,
      );
      // No payment failed for the crash, and no intent that names its amount got more.
      expect(done.map((p) => p.failureReason ?? p.state)).toEqual(flows.map(() => 'completed'));
      for (const f of flows) {
        const intent = await ok(a.admin('GET', `/payment-intents/${f.intent.id}`), 200);
        if (intent.incomingAmount) expect(intent).toMatchObject({ state: 'completed', receivedAmount: intent.incomingAmount });
      }

      // What C sent A (its peer account's growth) and what A took from C differ by the packets C
      // lists as unanswered that A credited (a lost fulfillment: A bears it), and by nothing else.
      const { items: listed } = await reconciliation(second, peerOfC.id, startedAt);
      let lost = 0n;
      for (const k of listed) if (await credited(a, cOnA.id, k.executionCondition)) lost += BigInt(k.amount.value);
      const cSent = (await peerLiquidity(second, peerOfC.id)) - cBefore;
      const aTook = aBefore - (await peerLiquidity(a, cOnA.id));
      console.log(`sender crash: ${listed.length} packets listed unanswered, ${lost} (cents) of them credited on A; C sent ${cSent}, A took ${aTook}`);
      expect(listed.length).toBeGreaterThan(0); // the crash cut packets in flight (else this test would prove nothing)
      expect(aTook - cSent).toBe(lost);
      expect(sum(await ledger(a))).toBe(0n);
    } finally {
      await c?.stop();
    }
  });
});
