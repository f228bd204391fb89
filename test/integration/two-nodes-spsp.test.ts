import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, paymentIn, sum, units, waitFor } from '../harness/world';

// SPSP (issue 45): B's wallet addresses answer payment pointers with STREAM connections, each
// paying an open intent made by its first paying packet; A pays a payment pointer ($host/path) as a
// quote's receiver. A fetches https ids over http (LOCAL_FETCH_HTTPS_AS_HTTP), as nodes on one machine.
let a: TestStack;
let b: OtherNode;
let alice: string; // on A, USD
let bob: string; // on B, USD
let bobPointer: string; // $localhost:<port>/bob

beforeAll(async () => {
  [a, b] = await Promise.all([
    startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a', LOCAL_FETCH_HTTPS_AS_HTTP: 'true' }),
    startOtherNode({ ILP_ADDRESS: 'test.node-b' }),
  ]);
  for (const node of [a, b]) await ok(node.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  alice = (await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
  bob = (await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/bob`, assetCode: 'USD' }))).address;
  bobPointer = `$${new URL(bob).host}/bob`;
  const { peerOfB } = await peerBothWays(a, b);
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const spspGet = (url: string) => fetch(url, { headers: { accept: 'application/spsp4+json' } });
const intentsOf = async (node: OtherNode, walletAddress: string) =>
  (await ok(node.admin('GET', `/payment-intents?walletAddress=${encodeURIComponent(walletAddress)}`), 200)).items as any[];

describe('SPSP', () => {
  it('answers a wallet address GET that accepts application/spsp4+json with a new STREAM connection each time, making nothing', async () => {
    const [first, second] = await Promise.all([spspGet(bob), spspGet(bob)]);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/spsp4+json');
    expect(first.headers.get('cache-control')).toBe('no-store');
    const [one, two] = [await first.json(), await second.json()];
    expect(Object.keys(one).sort()).toEqual(['destination_account', 'receipts_enabled', 'shared_secret']);
    expect(one.destination_account).toMatch(/^test\.node-b\.[A-Za-z0-9_~-]+$/);
    expect(Buffer.from(one.shared_secret, 'base64')).toHaveLength(32);
    expect(one.receipts_enabled).toBe(false);
    expect(two.destination_account).not.toBe(one.destination_account);
    expect(two.shared_secret).not.toBe(one.shared_secret);
    expect(await intentsOf(b, bob)).toEqual([]); // a GET makes no intent
    // Without the SPSP type: the Open Payments wallet address, as before.
    const plain = await fetch(bob, { headers: { accept: 'application/json' } });
    expect(plain.headers.get('content-type')).toBe('application/json');
    expect(await plain.json()).toMatchObject({ id: bob, assetCode: 'USD', assetScale: 2 });
  });

  it('answers 404 for an unknown wallet address and for an inactive one', async () => {
    const unknown = await spspGet(`${b.openPaymentsUrl}/nobody`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toBe('application/problem+json');
    const dora = await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/dora`, assetCode: 'USD' }));
    await ok(b.admin('PATCH', `/wallet-addresses/${dora.id}`, { status: 'inactive' }), 200);
    expect((await spspGet(dora.address)).status).toBe(404);
    await ok(b.admin('PATCH', `/wallet-addresses/${dora.id}`, { status: 'active' }), 200);
    expect((await spspGet(dora.address)).status).toBe(200);
  });

  it('answers SPSP by ENABLE_SPSP_PAYMENT_POINTERS: on by default (B), and with false the Open Payments wallet address', async () => {
    expect((await spspGet(bob)).headers.get('content-type')).toBe('application/spsp4+json');
    const off = await startOtherNode({ ILP_ADDRESS: 'test.node-off', ENABLE_SPSP_PAYMENT_POINTERS: 'false' });
    try {
      await ok(off.admin('POST', '/assets', { code: 'USD', scale: 2 }));
      const erin = (await ok(off.admin('POST', '/wallet-addresses', { address: `${off.openPaymentsUrl}/erin`, assetCode: 'USD' }))).address;
      const res = await spspGet(erin);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(await res.json()).toMatchObject({ id: erin, assetCode: 'USD' });
    } finally {
      await off.stop();
    }
  });

  it('pays a payment pointer on B from A: the intent its connection made is credited exactly the quoted amount, completed on close', async () => {
    const quote = await ok(a.admin('POST', '/quotes', { walletAddress: alice, receiver: bobPointer, receiveAmount: usd('1234') }));
    expect(quote).toMatchObject({ receiver: bob.replace('http:', 'https:'), receiveAmount: usd('1234'), debitAmount: usd('1234') });
    expect(await intentsOf(b, bob)).toEqual([]); // the quote's probe makes none either
    const payment = await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id }));
    await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(await paymentIn(a, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed', sentAmount: usd('1234') });

    const intent = await waitFor("the connection's intent on B completed", async () => {
      const [one, ...more] = await intentsOf(b, bob);
      return one?.state === 'completed' && !more.length ? one : undefined;
    });
    expect(intent).toMatchObject({ incomingAmount: null, receivedAmount: usd('1234'), state: 'completed' });
    const booksB = await ledger({ dynamo: a.dynamo, env: b.env });
    expect(booksB.get(`intent:${intent.id}`)).toBe(units(1234));
    expect(sum(booksB)).toBe(0n);
    expect(sum(await ledger(a))).toBe(0n);
  });

  it('refuses a malformed payment pointer (400), one with nothing there (422) and one with no amount (422), changing nothing', async () => {
    const before = { books: await ledger(a), intents: await intentsOf(b, bob) };
    for (const receiver of ['$', '$/bob', '$ex ample.com/bob', '$user@example.com/bob', '$example.com/bob?x=1']) {
      const res = await a.admin('POST', '/quotes', { walletAddress: alice, receiver, receiveAmount: usd('100') });
      expect(res.status, receiver).toBe(400);
      expect(res.body.detail, receiver).toMatch(/receiver is not a payment pointer/);
    }
    const missing = await a.admin('POST', '/quotes', { walletAddress: alice, receiver: `$${new URL(bob).host}/nobody`, receiveAmount: usd('100') });
    expect(missing).toMatchObject({ status: 422, body: { code: 'receiver_not_found' } });
    const noAmount = await a.admin('POST', '/quotes', { walletAddress: alice, receiver: bobPointer });
    expect(noAmount).toMatchObject({ status: 422, body: { code: 'amount_required' } });
    expect(await ledger(a)).toEqual(before.books);
    expect(await intentsOf(b, bob)).toEqual(before.intents);
  });
});
