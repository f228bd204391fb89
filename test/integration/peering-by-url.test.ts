import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtherNode, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, paymentIn, sum } from '../harness/world';

// Peering by URL between two nodes of ours, each with AUTO_PEERING_ENABLED: A asks B's peering
// endpoint (POST /peering on its connector's API), then B asks A's; each then pays the other, with
// no peer made by hand. Off by default is peers.test.ts's (a node as deployed); the rules in memory
// are test/unit/services/peering-by-url.test.ts's.
let a: TestStack;
let b: OtherNode;
let alice: string; // on A
let bob: string; // on B
const ON = { AUTO_PEERING_ENABLED: 'true' };
const peeringOf = (node: { connectorUrl: string }) => node.connectorUrl.replace(/\/ilp$/, '/peering');

beforeAll(async () => {
  [a, b] = await Promise.all([
    startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a', ...ON }),
    startOtherNode({ ILP_ADDRESS: 'test.node-b', ...ON }),
  ]);
  for (const node of [a, b]) await ok(node.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const wallet = async (node: TestStack | OtherNode, name: string) =>
    (await ok(node.admin('POST', '/wallet-addresses', { address: `${node.openPaymentsUrl}/${name}`, assetCode: 'USD' }))).address as string;
  alice = await wallet(a, 'alice');
  bob = await wallet(b, 'bob');
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

type Node = TestStack | OtherNode;
const peersOf = async (node: Node) => (await ok(node.admin('GET', '/peers'), 200)).items as any[];

// An intent on `to`, a quote and a payment for it on `from`, funded; awaited to its end.
async function pay(from: Node, sender: string, to: Node, receiver: string, value: string) {
  const intent = await ok(to.admin('POST', '/payment-intents', { walletAddress: receiver, incomingAmount: { value, assetCode: 'USD', assetScale: 2 } }));
  const quote = await ok(from.admin('POST', '/quotes', { walletAddress: sender, receiver: intent.url }));
  const payment = await ok(from.admin('POST', '/payments', { walletAddress: sender, quoteId: quote.id }));
  await ok(from.admin('POST', `/payments/${payment.id}/fund`), 200);
  return { payment: await paymentIn(from, payment.id, ['completed', 'failed']), intent: await ok(to.admin('GET', `/payment-intents/${intent.id}`), 200) };
}

describe('peering by URL', () => {
  it('peers A and B by URL both ways, each making one peer of the other, and then each pays the other', async () => {
    const byA = await ok(a.admin('POST', '/peers/by-url', { url: peeringOf(b), assetCode: 'USD', liquidityToDeposit: '50000' }), 200);
    expect(byA).toMatchObject({
      name: 'test.node-b', // B's answer names it
      staticIlpAddress: 'test.node-b',
      assetCode: 'USD',
      http: { outgoing: { endpoint: b.connectorUrl } },
      liquidity: { value: '50000', assetCode: 'USD', assetScale: 2 },
    });
    // B made its peer of A as it answered, with no credit: that is B's operator's to give.
    const [ofB] = await peersOf(b);
    expect(ofB).toMatchObject({ name: 'test.node-a', staticIlpAddress: 'test.node-a', http: { outgoing: { endpoint: a.connectorUrl } } });
    expect((await ok(b.admin('GET', `/peers/${ofB.id}`), 200)).liquidity.value).toBe('0');

    // B asks A in turn: each side changes its one peer (new tokens both ways) and B deposits.
    const byB = await ok(b.admin('POST', '/peers/by-url', { url: peeringOf(a), assetCode: 'USD', name: 'Node A', liquidityToDeposit: '50000' }), 200);
    expect(byB).toMatchObject({ id: ofB.id, name: 'Node A', liquidity: { value: '50000' } });
    expect((await peersOf(a)).map((p) => p.id)).toEqual([byA.id]);
    expect((await peersOf(b)).map((p) => p.id)).toEqual([ofB.id]);

    const aToB = await pay(a, alice, b, bob, '1200');
    expect(aToB.payment).toMatchObject({ state: 'completed', sentAmount: { value: '1200' } });
    expect(aToB.intent).toMatchObject({ state: 'completed', receivedAmount: { value: '1200' } });
    const bToA = await pay(b, bob, a, alice, '700');
    expect(bToA.payment).toMatchObject({ state: 'completed', sentAmount: { value: '700' } });
    expect(bToA.intent).toMatchObject({ state: 'completed', receivedAmount: { value: '700' } });
    // Each credit line moved by what passed: A's to B grew by what A sent less what B sent, and B's to A the other way.
    expect((await ok(a.admin('GET', `/peers/${byA.id}`), 200)).liquidity.value).toBe(String(50000 + 1200 - 700));
    expect((await ok(b.admin('GET', `/peers/${ofB.id}`), 200)).liquidity.value).toBe(String(50000 - 1200 + 700));
    expect(sum(await ledger(a))).toBe(0n);
    expect(sum(await ledger({ dynamo: a.dynamo, env: b.env }))).toBe(0n);
  });

  it("answers a request shaped as Rafiki's auto-peering sends it, and refuses a bad one with a 400 naming the field", async () => {
    const rafiki = {
      staticIlpAddress: 'test.rafiki',
      ilpConnectorUrl: 'http://localhost:5002',
      asset: { code: 'USD', scale: 2 },
      httpToken: '2f1b0c1e-6a4d-4b7e-9c58-0a1d3e5f7b9c', // Rafiki's tokens are uuids
      maxPacketAmount: null,
      name: 'Rafiki',
    };
    const res = await fetch(peeringOf(b), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rafiki) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ staticIlpAddress: 'test.node-b', ilpConnectorUrl: b.connectorUrl, httpToken: expect.any(String), name: 'test.node-b' });
    expect((await peersOf(b)).find((p) => p.staticIlpAddress === 'test.rafiki')).toMatchObject({ name: 'Rafiki', maxPacketAmount: null });

    const bad = await fetch(peeringOf(b), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...rafiki, staticIlpAddress: 'rafiki', httpToken: undefined }),
    });
    expect(bad.status).toBe(400);
    const problem = await bad.json();
    expect(problem).toMatchObject({ code: 'invalid_request', error: { code: 400, type: 'InvalidPeeringRequest' } });
    expect(problem.errors.map((e: { field: string }) => e.field).sort()).toEqual(['httpToken', 'staticIlpAddress']);
    const unknown = await fetch(peeringOf(b), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...rafiki, asset: { code: 'JPY', scale: 0 } }),
    });
    expect([unknown.status, (await unknown.json()).error?.type]).toEqual([422, 'UnknownAsset']);
  });

  it('refuses bad input with a 400 naming the field, an unknown asset with 422, and a node that answers no peering with 502, making nothing', async () => {
    const before = await peersOf(a);
    for (const [body, field] of [
      [{ assetCode: 'USD' }, 'url'],
      [{ url: 'not a url', assetCode: 'USD' }, 'url'],
      [{ url: peeringOf(b), assetCode: 'USD', liquidityToDeposit: '-5' }, 'liquidityToDeposit'],
      [{ url: peeringOf(b), assetCode: 'USD', maxPacketAmount: '0' }, 'maxPacketAmount'],
      [{ url: peeringOf(b), assetCode: 'USD', staticIlpAddress: 'test.x' }, 'staticIlpAddress'],
    ] as const) {
      const res = await a.admin('POST', '/peers/by-url', body);
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    expect((await a.admin('POST', '/peers/by-url', { url: peeringOf(b), assetCode: 'XYZ' })).body.code).toBe('unknown_asset');
    // B's Open Payments server is no peering endpoint: its 404 is B's refusal.
    const notPeering = await a.admin('POST', '/peers/by-url', { url: `${b.openPaymentsUrl}/peering`, assetCode: 'USD' });
    expect([notPeering.status, notPeering.body.code]).toEqual([502, 'peering_failed']);
    expect(await peersOf(a)).toEqual(before);
  });
});
