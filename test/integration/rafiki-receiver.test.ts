import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deserializeIlpPrepare, isFulfill, isIlpReply, serializeIlpReply } from 'ilp-packet';
// Rafiki's receiver, as Rafiki ships it (v2.4.1-beta-9): @interledger/stream-receiver 0.3.3-alpha.4
// from npm's registry, under an alias beside this service's own (alpha.3).
import { StreamServer } from 'stream-receiver-rafiki';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBody } from '../../infra/local/start/listen';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, paymentIn, sum } from '../harness/world';

// Conformance with Rafiki's receiver (issue 29, items 2 and 4). It answers the rate probe's
// unfulfillable packets F05, and packets under the sender's minimum F04, where alpha.3 answers
// F99; pay 0.4.0-alpha.9 took those as the path's failure, so every quote for a Rafiki incoming
// payment was 502 rate_probe_failed. Here a small node of the test's stands in for Rafiki: an
// incoming payment over Open Payments (its public view, a grant at once, the full view with its
// STREAM credentials), and ILP over HTTP into that receiver, which credits it as Rafiki does
// (what each packet brings, until it has its incomingAmount). Node A pays it through a peer.
const RAFIKI_ADDRESS = 'test.rafiki';
const TOKEN = 'node-a-to-rafiki-token-0123456789';
let a: TestStack;
let rafiki: Server;
let base: string;
let alice: string;
let peer: { id: string };
const receiver = new StreamServer({ serverSecret: randomBytes(32), serverAddress: RAFIKI_ADDRESS });
const payments = new Map<string, { incoming: bigint; received: bigint }>();
const rejects: string[] = []; // the codes Rafiki's receiver answered
// The way into Rafiki's receiver: a cut it takes of each packet (percent, as a connector whose rate
// dropped would), or a reject of its own (no STREAM reply: only the receiver can write one).
const way: { cut: bigint; refuses?: string } = { cut: 0n };

const amount = (value: bigint) => ({ value: value.toString(), assetCode: 'USD', assetScale: 2 });

// Rafiki's side of ILP over HTTP: one Prepare in, its Fulfill or Reject out.
function ilp(body: Buffer): Buffer {
  const sent = deserializeIlpPrepare(body);
  if (way.refuses) return serializeIlpReply({ code: way.refuses, message: 'refused on the way', triggeredBy: 'test.connector', data: Buffer.alloc(0) });
  const prepare = { ...sent, amount: ((BigInt(sent.amount) * (100n - way.cut)) / 100n).toString() };
  const reply = receiver.createReply(prepare);
  if (isIlpReply(reply)) {
    if (!isFulfill(reply)) rejects.push(reply.code);
    return serializeIlpReply(reply);
  }
  const payment = reply.paymentTag ? payments.get(reply.paymentTag) : undefined;
  if (!payment || payment.received >= payment.incoming) return serializeIlpReply(reply.finalDecline());
  const received = payment.received + BigInt(prepare.amount);
  if (received > payment.incoming) return serializeIlpReply(reply.temporaryDecline());
  payment.received = received;
  reply.setTotalReceived(received.toString());
  return serializeIlpReply(reply.accept());
}

async function startRafiki(): Promise<string> {
  rafiki = createServer(async (req, res) => {
    const body = await readBody(req, 64 * 1024);
    if (body === 'too_large') return void res.writeHead(413).end();
    const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    const url = new URL(req.url ?? '/', base);
    if (req.method === 'POST' && url.pathname === '/ilp') {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(401).end();
      return void res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(ilp(body));
    }
    // A grant to read incoming payments, issued at once (as Rafiki issues read-all to a wallet's peers).
    if (req.method === 'POST' && url.pathname === '/auth') {
      const { access_token } = JSON.parse(body.toString());
      return json(200, {
        access_token: { value: randomUUID(), manage: `${base}/auth/token/${randomUUID()}`, expires_in: 600, access: access_token.access },
        continue: { access_token: { value: randomUUID() }, uri: `${base}/auth/continue/${randomUUID()}` },
      });
    }
    const id = /^\/incoming-payments\/([0-9a-f-]{36})$/.exec(url.pathname)?.[1];
    const payment = id && payments.get(id);
    if (req.method !== 'GET' || !payment) return json(404, { error: { code: 'not_found' } });
    if (!req.headers.authorization) return json(200, { receivedAmount: amount(payment.received), authServer: `${base}/auth` });
    const { ilpAddress, sharedSecret } = receiver.generateCredentials({ paymentTag: id, asset: { code: 'USD', scale: 2 } });
    return json(200, {
      id: `${base}/incoming-payments/${id}`,
      walletAddress: `${base}/bob`,
      completed: payment.received >= payment.incoming,
      incomingAmount: amount(payment.incoming),
      receivedAmount: amount(payment.received),
      methods: [{ type: 'ilp', ilpAddress, sharedSecret: sharedSecret.toString('base64url') }],
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
    });
  });
  await new Promise<void>((r) => rafiki.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(rafiki.address() as AddressInfo).port}`;
}

// An incoming payment on the stand-in for Rafiki: its URL.
function incomingPayment(value: bigint): string {
  const id = randomUUID();
  payments.set(id, { incoming: value, received: 0n });
  return `${base}/incoming-payments/${id}`;
}

beforeAll(async () => {
  base = await startRafiki();
  a = await startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a' });
  await ok(a.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  alice = (await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
  peer = await ok(
    a.admin('POST', '/peers', {
      name: 'Rafiki',
      staticIlpAddress: RAFIKI_ADDRESS,
      assetCode: 'USD',
      http: { incoming: { authTokens: ['rafiki-to-node-a-token-0123456789'] }, outgoing: { authToken: TOKEN, endpoint: `${base}/ilp` } },
    }),
  );
});
afterAll(async () => {
  await a?.stop();
  await new Promise((r) => rafiki?.close(r));
});

describe("Rafiki's receiver (stream-receiver 0.3.3-alpha.4)", () => {
  it('answers the rate probe, which reads its F05 answers as the receiver’s: the quote is 201 at the rate of the way', async () => {
    const url = incomingPayment(500n);
    rejects.length = 0;
    const res = await a.admin('POST', '/quotes', { walletAddress: alice, receiver: url });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ receiver: url, debitAmount: amount(500n), receiveAmount: amount(500n), estimatedExchangeRate: 1 });
    expect(rejects).toContain('F05'); // what it answered the probe's packets
  });

  it('is paid by a payment of this node, completed, with the books of both sides equal', async () => {
    const url = incomingPayment(1234n);
    const id = url.split('/').at(-1)!;
    const quote = await ok(a.admin('POST', '/quotes', { walletAddress: alice, receiver: url }));
    const payment = await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id }));
    const before = (await ledger(a)).get(`peer:${peer.id}`) ?? 0n;
    await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(await paymentIn(a, payment.id, ['completed', 'failed'], 30_000)).toMatchObject({ state: 'completed', sentAmount: amount(1234n) });
    expect(payments.get(id)).toEqual({ incoming: 1234n, received: 1234n });
    const books = await ledger(a);
    expect((books.get(`peer:${peer.id}`) ?? 0n) - before).toBe(1234n * 10n ** 18n); // what Rafiki received, at the ledger's scale
    expect(sum(books)).toBe(0n);
  });

  it('is told from the way: a reject without its STREAM reply (a connector’s F05) fails the quote at once, 502 rate_probe_failed', async () => {
    way.refuses = 'F05';
    try {
      const started = Date.now();
      const res = await a.admin('POST', '/quotes', { walletAddress: alice, receiver: incomingPayment(500n) });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ code: 'rate_probe_failed', detail: expect.stringContaining('ConnectorError') });
      expect(Date.now() - started).toBeLessThan(5000); // not after the probe's 10 s
    } finally {
      delete way.refuses;
    }
  });

  it('answers F04 (less than the sender’s minimum) when the rate drops after the quote, which is read as its answer: the payment fails rate_below_minimum, having sent nothing', async () => {
    const url = incomingPayment(800n);
    const quote = await ok(a.admin('POST', '/quotes', { walletAddress: alice, receiver: url }));
    const payment = await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id }));
    way.cut = 5n; // more than the quote's slippage (1%)
    rejects.length = 0;
    try {
      await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
      const failed = await paymentIn(a, payment.id, ['completed', 'failed'], 30_000);
      expect(failed).toMatchObject({ state: 'failed', failureReason: 'rate_below_minimum', sentAmount: amount(0n) });
      expect(rejects).toContain('F04');
    } finally {
      way.cut = 0n;
    }
  });
});
