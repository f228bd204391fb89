import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBody } from '../../infra/local/start/listen';
import { fileEmulators } from '../harness/emulators';
import { type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, packetsOf, paymentIn, sum } from '../harness/world';
import { expectPacketBooks } from '../readers/books';

// A packet is credited before it expires, or never (issue 28 item 4). Node B reaches DynamoDB
// through a proxy of this file's that can hold B's next credit (a transaction that writes a
// packet's transfer) for a while before passing it on, as a machine too busy to answer would.
// Before, B checked the packet's expiry before its write and answered when the write came back:
// a write that came back after the expiry credited the intent while A, no longer waiting, booked
// the packet unanswered and sent its money again.
let a: TestStack;
let b: OtherNode;
let proxy: Server;
let alice: string;
let bob: string;
let peerOfA: { id: string };
let peerOfB: { id: string };
let holdNextCredit = 0; // ms to hold B's next credit for (0: none)

// B's DynamoDB: every request passed on to the file's DynamoDB Local, but the credit a test arms.
async function startSlowDynamo(target: string): Promise<string> {
  proxy = createServer(async (req, res) => {
    const body = await readBody(req, 16 * 1024 * 1024);
    if (body === 'too_large') return void res.writeHead(413).end();
    const credit = req.headers['x-amz-target'] === 'DynamoDB_20120810.TransactWriteItems' && body.includes('XFER#ilp:');
    if (credit && holdNextCredit) {
      const hold = holdNextCredit;
      holdNextCredit = 0;
      await new Promise((r) => setTimeout(r, hold));
    }
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
    const answer = await fetch(`${target}${req.url}`, { method: req.method, headers, body: new Uint8Array(body) });
    res.writeHead(answer.status, Object.fromEntries(answer.headers)).end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  const emulators = await fileEmulators();
  const slow = await startSlowDynamo(emulators.dynamodb);
  [a, b] = await Promise.all([
    startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a' }),
    startOtherNode({ ILP_ADDRESS: 'test.node-b' }, { ...emulators, dynamodb: slow }),
  ]);
  for (const node of [a, b]) await ok(node.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  alice = (await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
  bob = (await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/bob`, assetCode: 'USD' }))).address;
  ({ peerOfA, peerOfB } = await peerBothWays(a, b));
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await new Promise((r) => proxy?.close(r));
});

describe('a credit slower than its packet', () => {
  it('is refused at the packet’s expiry, never made after it: the payment sends the money again, once, and both books agree', async () => {
    // An open intent: nothing but the sender bounds what it takes, so a packet paid twice shows.
    const intent = await ok(b.admin('POST', '/payment-intents', { walletAddress: bob }));
    const quote = await ok(
      a.admin('POST', '/quotes', { walletAddress: alice, receiver: intent.url, receiveAmount: { value: '250', assetCode: 'USD', assetScale: 2 } }),
    );
    const payment = await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id }));
    const bBooks = { dynamo: a.dynamo, env: b.env };
    const [aBefore, bBefore] = [await ledger(a), await ledger(bBooks)];
    // Past the packet's expiry (it lives at most 10 s), and before A would book it unanswered.
    holdNextCredit = 10_500;
    await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);

    const done = await paymentIn(a, payment.id, ['completed', 'failed'], 60_000);
    expect(done).toMatchObject({ state: 'completed', sentAmount: { value: '250' } });
    expect(holdNextCredit).toBe(0); // the held credit happened
    expect((await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).receivedAmount.value).toBe('250');
    // The held packet was answered (refused at its expiry) and sent again: nothing unanswered.
    const packets = await packetsOf(a, payment.id);
    expect(packets.map((k) => k.state).sort()).toEqual(['fulfilled', 'rejected']);
    await expectPacketBooks(a, bBooks, { peerOfA, peerOfB }, [payment.id], { a: aBefore, b: bBefore });
    expect(sum(await ledger(a))).toBe(0n);
    expect(sum(await ledger(bBooks))).toBe(0n);
  });
});
