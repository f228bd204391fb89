import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spansOf, spansUnder } from '../../infra/local/emulators/traces';
import { A_TO_B, type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, packetsOf, paymentIn, paymentsIn, sum, units, waitFor } from '../harness/world';
import { expectPacketBooks } from '../readers/books';

// The specification's two-node walkthrough: Node A (this file's stack) pays Node B (another node of
// ours, on its own thread) over Interledger, each peered with the other's connector.
let a: TestStack;
let b: OtherNode;
let alice: string; // on A, USD
let bob: string; // on B, USD
let carlos: string; // on B, EUR
let peerOfA: { id: string }; // A's peer: B
let peerOfB: { id: string }; // B's peer: A

beforeAll(async () => {
  [a, b] = await Promise.all([startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a' }), startOtherNode({ ILP_ADDRESS: 'test.node-b' })]);
  for (const node of [a, b]) await ok(node.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const eur = await ok(b.admin('POST', '/assets', { code: 'EUR', scale: 2 }));
  await ok(b.admin('POST', `/assets/${eur.id}/liquidity`, { amount: '1000000' }), 200);
  const wallet = async (node: TestStack | OtherNode, name: string, assetCode: string) =>
    (await ok(node.admin('POST', '/wallet-addresses', { address: `${node.openPaymentsUrl}/${name}`, assetCode }))).address as string;
  alice = await wallet(a, 'alice', 'USD');
  bob = await wallet(b, 'bob', 'USD');
  carlos = await wallet(b, 'carlos', 'EUR');
  ({ peerOfA, peerOfB } = await peerBothWays(a, b));
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
  // Payments through the peer convert at its rate, on both nodes.
  await ok(a.admin('POST', '/rates', { peerId: peerOfA.id, sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9, rateTtlSecs: 86400 }));
  await ok(b.admin('POST', '/rates', { peerId: peerOfB.id, sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9, rateTtlSecs: 86400 }));
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});
afterEach(() => {
  delete process.env.PAYMENT_FAULTS;
});

const peerLiquidity = async (node: TestStack | OtherNode, id: string) => BigInt((await ok(node.admin('GET', `/peers/${id}`), 200)).liquidity.value);

// On B an intent; on A a quote for it and a payment (each 201), funded as the FSP would.
async function payAcross(to: string, value: string, assetCode = 'USD', opts: { fund?: boolean } = {}) {
  const intent = await ok(b.admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { value, assetCode, assetScale: 2 } }));
  const quote = await ok(a.admin('POST', '/quotes', { walletAddress: alice, receiver: intent.url }));
  const payment = await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id }));
  if (opts.fund !== false) await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
  return { intent, quote, payment };
}

async function expectBalancedLedgers() {
  expect(sum(await ledger(a))).toBe(0n);
  expect(sum(await ledger({ dynamo: a.dynamo, env: b.env }))).toBe(0n);
}

describe('paying across two nodes', () => {
  it('pays an intent on B from A in the same currency: amounts exact, peer liquidity moved by what was delivered, both ledgers balanced', async () => {
    const [aLiquidity, bLiquidity] = await Promise.all([peerLiquidity(a, peerOfA.id), peerLiquidity(b, peerOfB.id)]);
    const { intent, quote, payment } = await payAcross(bob, '1000');
    expect(quote).toMatchObject({
      receiver: intent.url,
      debitAmount: { value: '1000', assetCode: 'USD' },
      receiveAmount: { value: '1000', assetCode: 'USD' },
      estimatedExchangeRate: 1,
    });
    const done = await paymentIn(a, payment.id, ['completed', 'failed']);
    expect(done).toMatchObject({ state: 'completed', sentAmount: { value: '1000' } });
    expect(await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({ state: 'completed', receivedAmount: { value: '1000' } });
    expect((await peerLiquidity(a, peerOfA.id)) - aLiquidity).toBe(1000n); // A sent to B: the credit line to B grew
    expect(bLiquidity - (await peerLiquidity(b, peerOfB.id))).toBe(1000n); // B took from A: A's credit line shrank
    expect((await ledger({ dynamo: a.dynamo, env: b.env })).get(`intent:${intent.id}`)).toBe(units(1000));
    expect((await ledger(a)).get(`payment:${payment.id}`) ?? 0n).toBe(0n);
    await expectBalancedLedgers();
  });

  it('pays a EUR intent on B from USD on A, converting at the peer rate on B, each packet once in both books', async () => {
    const before = { a: await ledger(a), b: await ledger({ dynamo: a.dynamo, env: b.env }) };
    const { intent, quote, payment } = await payAcross(carlos, '900', 'EUR');
    expect(quote).toMatchObject({ debitAmount: { value: '1000', assetCode: 'USD' }, receiveAmount: { value: '900', assetCode: 'EUR' } });
    expect(quote.estimatedExchangeRate).toBeCloseTo(0.9, 6);
    expect(await paymentIn(a, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed', sentAmount: { value: '1000' } });
    expect(await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({
      state: 'completed',
      receivedAmount: { value: '900', assetCode: 'EUR' },
    });
    await expectPacketBooks(a, { dynamo: a.dynamo, env: b.env }, { peerOfA, peerOfB }, [payment.id], before);
    await expectBalancedLedgers();
  });

  it("is one trace across both nodes: A's worker sends each packet with its trace header, and B's connector takes it, and credits the intent, in that trace", async () => {
    const { payment } = await payAcross(bob, '700');
    await paymentIn(a, payment.id, ['completed']);
    const funding = await waitFor("A's funding trace, to the worker's end", async () =>
      a.traces!.annotated('paymentId', payment.id).find((t) => t.documents.some((d) => d.name === 'paymentsWorker')),
    );
    const packets = spansOf(funding.documents).filter((d) => d.namespace === 'remote' && d.http?.request?.url === b.connectorUrl);
    expect(packets.length).toBeGreaterThan(0);
    expect(packets.map((p) => p.http?.response?.status)).toEqual(packets.map(() => 200));
    const onB = await waitFor("B's part of the trace", async () => {
      const t = await b.trace(funding.id);
      return t?.documents.some((d) => d.name === 'ilpConnector') ? t : undefined;
    });
    const spans = spansOf(onB.documents);
    // B's connector API took each packet under the request of A's that carried it.
    const requests = spans.filter((d) => d.origin === 'AWS::ApiGateway::Stage' && d.http?.request?.url.endsWith('/ilp'));
    expect(requests.map((r) => r.parent).sort()).toEqual(packets.map((p) => p.id).sort());
    // Its connector function received the STREAM money: the intent's credit, one transaction.
    const connector = spans.findIndex((d) => d.name === 'ilpConnector');
    expect(spans[connector].parent).toBe(requests[0].id);
    expect(spansUnder(spans, connector).map((d) => d.aws?.operation)).toContain('TransactWriteItems');
  });

  it('splits a payment into packets no larger than the peer takes, delivering the exact total', async () => {
    await ok(b.admin('PATCH', `/peers/${peerOfB.id}`, { maxPacketAmount: '100' }), 200);
    try {
      const { intent, payment } = await payAcross(bob, '1234');
      expect(await paymentIn(a, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed', sentAmount: { value: '1234' } });
      expect((await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).receivedAmount.value).toBe('1234');
      const paid = (await packetsOf(a, payment.id)).filter((k) => k.state === 'fulfilled');
      expect(paid.length).toBeGreaterThanOrEqual(13);
      expect(paid.every((k) => k.source <= 100n)).toBe(true);
      await expectBalancedLedgers();
    } finally {
      await ok(b.admin('PATCH', `/peers/${peerOfB.id}`, { maxPacketAmount: null }), 200);
    }
  });

  // Issue 28 item 4: under this load packets went unanswered in time, A booked them unanswered and
  // sent their money again while B had credited them: open intents over-credited, a payment failed.
  it('under normal load (8 concurrent payments in packets of 3) answers every packet in time, and the books agree to the unit', async () => {
    await ok(a.admin('PATCH', `/peers/${peerOfA.id}`, { maxPacketAmount: '3' }), 200);
    try {
      const before = { a: await ledger(a), b: await ledger({ dynamo: a.dynamo, env: b.env }) };
      const flows = await Promise.all(
        Array.from({ length: 8 }, async (_, i) => {
          // Half the intents ask for the amount; the other half are open (nothing bounds a repeat but the sender).
          const value = String(301 + i);
          const intent = await ok(
            b.admin('POST', '/payment-intents', { walletAddress: bob, ...(i % 2 ? {} : { incomingAmount: { value, assetCode: 'USD', assetScale: 2 } }) }),
          );
          const quote = await ok(
            a.admin('POST', '/quotes', {
              walletAddress: alice,
              receiver: intent.url,
              ...(i % 2 ? { receiveAmount: { value, assetCode: 'USD', assetScale: 2 } } : {}),
            }),
          );
          return { value, intent, payment: await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id })) };
        }),
      );
      const started = Date.now();
      await Promise.all(flows.map((f) => ok(a.admin('POST', `/payments/${f.payment.id}/fund`), 200)));
      const done = await paymentsIn(
        a,
        flows.map((f) => f.payment.id),
        ['completed', 'failed'],
        240_000,
      );
      const packets = (await Promise.all(flows.map((f) => packetsOf(a, f.payment.id)))).flat();
      const byState: Record<string, number> = {};
      for (const k of packets) byState[k.state] = (byState[k.state] ?? 0) + 1;
      console.log(`normal load: ${packets.length} packets in ${((Date.now() - started) / 1000).toFixed(1)} s`, byState);
      expect(done.map((p) => p.failureReason ?? p.state)).toEqual(flows.map(() => 'completed'));
      expect(packets.filter((k) => k.state !== 'fulfilled' && k.state !== 'rejected')).toEqual([]);
      for (const [i, f] of flows.entries()) {
        expect((await ok(b.admin('GET', `/payment-intents/${f.intent.id}`), 200)).receivedAmount.value, `intent ${i}`).toBe(f.value);
        expect(done[i].sentAmount.value, `payment ${i}`).toBe(f.value);
      }
      // Each fulfilled packet once on each side's books, and nothing else: the peer accounts agree to the unit.
      const books = await expectPacketBooks(
        a,
        { dynamo: a.dynamo, env: b.env },
        { peerOfA, peerOfB },
        flows.map((f) => f.payment.id),
        before,
      );
      expect(books.sentByA).toBe(units(flows.reduce((t, f) => t + Number(f.value), 0)));
      await expectBalancedLedgers();
    } finally {
      await ok(a.admin('PATCH', `/peers/${peerOfA.id}`, { maxPacketAmount: null }), 200);
    }
  });

  it('fails a quote at once when the peer refuses this node’s token', async () => {
    await ok(a.admin('PATCH', `/peers/${peerOfA.id}`, { http: { outgoing: { authToken: 'a-token-node-b-does-not-know', endpoint: b.connectorUrl } } }), 200);
    try {
      const intent = await ok(b.admin('POST', '/payment-intents', { walletAddress: bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
      const started = Date.now();
      const res = await a.admin('POST', '/quotes', { walletAddress: alice, receiver: intent.url });
      expect(Date.now() - started).toBeLessThan(3000);
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ code: 'peer_refused' });
    } finally {
      await ok(a.admin('PATCH', `/peers/${peerOfA.id}`, { http: { outgoing: { authToken: A_TO_B, endpoint: b.connectorUrl } } }), 200);
    }
  });

  it('retries a payment while the peer’s connector is down, and then delivers it once', async () => {
    const { intent, payment } = await payAcross(bob, '500', 'USD', { fund: false });
    await b.api('connector', 'stop');
    try {
      await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
      await waitFor('an attempt to find the connector down', async () =>
        (await packetsOf(a, payment.id)).some((k) => k.state === 'rejected') ? true : undefined,
      );
      expect((await ok(a.admin('GET', `/payments/${payment.id}`), 200)).state).toBe('sending');
    } finally {
      await b.api('connector', 'start');
    }
    expect(await paymentIn(a, payment.id, ['completed', 'failed'], 20_000)).toMatchObject({ state: 'completed', sentAmount: { value: '500' } });
    expect((await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).receivedAmount.value).toBe('500');
    await expectBalancedLedgers();
  });

  it('fails the payment when B has too little liquidity for A (T04), leaving its funds to withdraw', async () => {
    const all = await peerLiquidity(b, peerOfB.id);
    await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity-withdrawals`, { amount: all.toString() }), 200);
    try {
      const { intent, payment } = await payAcross(bob, '300');
      const failed = await paymentIn(a, payment.id, ['completed', 'failed'], 25_000);
      expect(failed).toMatchObject({ state: 'failed', failureReason: 'insufficient_liquidity', sentAmount: { value: '0' } });
      expect((await ok(a.admin('POST', `/payments/${payment.id}/withdraw`), 200)).withdrawnAmount.value).toBe('300');
      expect((await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).receivedAmount.value).toBe('0');
      await expectBalancedLedgers();
    } finally {
      await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: all.toString() }), 200);
    }
  });

  it('fails a payment whose intent B completed meanwhile, sending nothing', async () => {
    const { intent, payment } = await payAcross(bob, '200', 'USD', { fund: false });
    await ok(b.admin('POST', `/payment-intents/${intent.id}/complete`), 200);
    await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(await paymentIn(a, payment.id, ['completed', 'failed'])).toMatchObject({
      state: 'failed',
      failureReason: 'receiver_completed',
      sentAmount: { value: '0' },
    });
    expect((await ok(a.admin('POST', `/payments/${payment.id}/withdraw`), 200)).withdrawnAmount.value).toBe('200');
    const refused = await a.admin('POST', '/quotes', { walletAddress: alice, receiver: intent.url });
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('receiver_not_open');
  });

  it('survives a crash between a packet’s Fulfill and its settlement: the packet is booked as not paid (B bears the lost fulfillment), listed for reconciliation, and nothing is sent twice', async () => {
    const { intent, payment } = await payAcross(bob, '700', 'USD', { fund: false });
    const [aBefore, bBefore] = [await peerLiquidity(a, peerOfA.id), await peerLiquidity(b, peerOfB.id)];
    process.env.PAYMENT_FAULTS = 'ilp-send:after-reply';
    await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
    // B takes the packet; A's attempt crashes as its Fulfill arrives (the redelivery comes a second later).
    await waitFor('B to take the packet', async () =>
      (await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).receivedAmount.value === '700' ? true : undefined,
    );
    await waitFor('the crash to leave the packet pending', async () =>
      (await packetsOf(a, payment.id)).some((k) => k.state === 'pending') ? true : undefined,
    );
    await new Promise((r) => setTimeout(r, 200));
    delete process.env.PAYMENT_FAULTS;
    // The Fulfill never reached A's books: A owes nothing for it, and B's intent has all it asked,
    // so the payment completes having sent nothing; its 700 stay in its account, to withdraw.
    expect(await paymentIn(a, payment.id, ['completed', 'failed'], 30_000)).toMatchObject({ state: 'completed', sentAmount: { value: '0' } });
    expect((await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).receivedAmount.value).toBe('700');
    expect((await packetsOf(a, payment.id)).map((k) => k.state)).toEqual(['unanswered']);
    expect(await peerLiquidity(a, peerOfA.id)).toBe(aBefore);
    expect(bBefore - (await peerLiquidity(b, peerOfB.id))).toBe(700n); // the difference the two operators settle
    const listed = await ok(a.admin('GET', `/peers/${peerOfA.id}/reconciliation`), 200);
    expect(listed.items).toEqual([
      expect.objectContaining({
        paymentId: payment.id,
        amount: { value: '700', assetCode: 'USD', assetScale: 2 },
        paymentAmount: { value: '700', assetCode: 'USD', assetScale: 2 },
      }),
    ]);
    expect(listed.total).toEqual({ count: 1, amount: { value: '700', assetCode: 'USD', assetScale: 2 } });
    // A window is by expiry, [from, to): one that ends at the packet's expiry, or starts after it, holds nothing.
    const expiry = listed.items[0].expiresAt;
    for (const window of [`to=${encodeURIComponent(expiry)}`, `from=${encodeURIComponent(new Date(Date.parse(expiry) + 1).toISOString())}`]) {
      const outside = await ok(a.admin('GET', `/peers/${peerOfA.id}/reconciliation?${window}`), 200);
      expect([outside.items, outside.total.count], window).toEqual([[], 0]);
    }
    const within = `from=${encodeURIComponent(expiry)}&to=${encodeURIComponent(new Date(Date.parse(expiry) + 1).toISOString())}`;
    expect((await ok(a.admin('GET', `/peers/${peerOfA.id}/reconciliation?${within}`), 200)).items).toHaveLength(1);
    expect((await ok(a.admin('POST', `/payments/${payment.id}/withdraw`), 200)).withdrawnAmount.value).toBe('700');
    await expectBalancedLedgers();
  });
});

// Issue 44 item 2: receivers (Rafiki's createReceiver, receiver, completeReceiver), an incoming
// payment made, read and completed on B from A's Admin API, over Open Payments as A's own client;
// on A's own wallet addresses, a payment intent.
describe('receivers on another node', () => {
  const idOf = (url: string) => url.split('/').pop()!;

  it('makes an incoming payment on B for A to pay, and reads it from A as it fills', async () => {
    const made = await ok(
      a.admin('POST', '/receivers', {
        walletAddressUrl: bob,
        incomingAmount: { value: '500', assetCode: 'USD', assetScale: 2 },
        metadata: { description: 'For lunch!' },
      }),
    );
    expect(made).toEqual({
      id: expect.stringMatching(new RegExp(`^${b.openPaymentsUrl}/incoming-payments/[0-9a-f-]{36}$`)),
      walletAddressUrl: bob,
      completed: false,
      incomingAmount: { value: '500', assetCode: 'USD', assetScale: 2 },
      receivedAmount: { value: '0', assetCode: 'USD', assetScale: 2 },
      expiresAt: expect.any(String),
      metadata: { description: 'For lunch!' },
      createdAt: expect.any(String),
    });
    // B has it as a payment intent of its own, made by A's service identity.
    expect(await ok(b.admin('GET', `/payment-intents/${idOf(made.id)}`), 200)).toMatchObject({ state: 'pending', metadata: { description: 'For lunch!' } });
    const quote = await ok(a.admin('POST', '/quotes', { walletAddress: alice, receiver: made.id }));
    const payment = await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id }));
    await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(await paymentIn(a, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed' });
    expect(await ok(a.admin('GET', `/receivers?url=${encodeURIComponent(made.id)}`), 200)).toMatchObject({
      id: made.id,
      completed: true,
      receivedAmount: { value: '500' },
    });
    await expectBalancedLedgers();
  });

  it('completes one on B from A, and on A itself as a payment intent', async () => {
    const open = await ok(a.admin('POST', '/receivers', { walletAddressUrl: bob }));
    expect(open).toMatchObject({ completed: false, incomingAmount: null });
    expect(await ok(a.admin('POST', '/receivers/complete', { url: open.id }), 200)).toMatchObject({ id: open.id, completed: true });
    expect(await ok(b.admin('GET', `/payment-intents/${idOf(open.id)}`), 200)).toMatchObject({ state: 'completed' });

    const mine = await ok(a.admin('POST', '/receivers', { walletAddressUrl: alice, incomingAmount: { value: '7', assetCode: 'USD', assetScale: 2 } }));
    expect(mine.id).toBe(`${a.openPaymentsUrl}/incoming-payments/${idOf(mine.id)}`);
    expect(await ok(a.admin('GET', `/payment-intents/${idOf(mine.id)}`), 200)).toMatchObject({ state: 'pending', incomingAmount: { value: '7' } });
    expect(await ok(a.admin('POST', '/receivers/complete', { url: mine.id }), 200)).toMatchObject({ completed: true });
  });

  it('answers what is not there, or not a receiver, with a clear 4xx, and makes nothing', async () => {
    const nobody = await a.admin('POST', '/receivers', { walletAddressUrl: `${b.openPaymentsUrl}/nobody` });
    expect(nobody).toMatchObject({ status: 422, body: { code: 'receiver_not_found', detail: `No wallet address at ${b.openPaymentsUrl}/nobody` } });
    const missing = `${b.openPaymentsUrl}/incoming-payments/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c`;
    expect(await a.admin('GET', `/receivers?url=${encodeURIComponent(missing)}`)).toMatchObject({ status: 422, body: { code: 'receiver_not_found' } });
    expect(await a.admin('POST', '/receivers/complete', { url: missing })).toMatchObject({ status: 422, body: { code: 'receiver_not_found' } });
    expect(await a.admin('GET', '/receivers?url=not-a-url')).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect(await a.admin('POST', '/receivers', { walletAddressUrl: bob, incomingAmount: { value: '-1', assetCode: 'USD', assetScale: 2 } })).toMatchObject({
      status: 400,
      body: { errors: [{ field: 'incomingAmount.value' }] },
    });
  });
});
