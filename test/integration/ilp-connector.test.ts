import { createHash } from 'node:crypto';
import { pay, setupPayment, startQuote } from '@interledger/pay';
import { deserializeIlpReply, type IlpReject, type IlpReply, isFulfill, isReject, serializeIlpPrepare } from 'ilp-packet';
import { deserializeIldcpResponse, serializeIldcpRequest } from 'ilp-protocol-ildcp';
import { generateFulfillment, generateFulfillmentKey, generatePskEncryptionKey } from 'ilp-protocol-stream/dist/src/crypto';
import { FrameType, IlpPacketType, Packet, type StreamMaxMoneyFrame, StreamMoneyFrame } from 'ilp-protocol-stream/dist/src/packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ilpOverHttp } from '../harness/ilp-over-http';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, sum, units } from '../harness/world';

// The connector as a foreign peer sees it: an ILP-over-HTTP client (the official STREAM sender,
// @interledger/pay, over fetch) pays this node's incoming payments through POST /ilp.
let s: TestStack;
let bobUsd: string;
let carlosEur: string;
let kenjiJpy: string;
let peer: { id: string };
const TOKEN = 'peer-x-incoming-token-0123456789';

// ILP over HTTP to this node's connector, as peer x (or another token); every packet sent is kept.
const link = (token = TOKEN) => ilpOverHttp(s.connectorUrl, token);

async function credentials(intentUrl: string) {
  const [{ readIncomingPayment }, { node }] = await Promise.all([import('../../lib/open-payments/client'), import('../../lib/platform/config')]);
  const read = await readIncomingPayment(node, intentUrl);
  const ilp = read.methods.find((m) => m.type === 'ilp')!;
  return { destinationAddress: ilp.ilpAddress, sharedSecret: Buffer.from(ilp.sharedSecret, 'base64url') };
}

async function intent(wallet: string, value: string, assetCode = 'USD') {
  return ok(s.admin('POST', '/payment-intents', { walletAddress: wallet, incomingAmount: { value, assetCode, assetScale: 2 } }));
}

async function payIntent(target: { url: string }, amount: bigint, plugin = link().plugin) {
  const destination = await setupPayment({ plugin, ...(await credentials(target.url)) });
  const quote = await startQuote({ plugin, destination, amountToDeliver: amount, sourceAsset: { code: 'USD', scale: 2 }, prices: { USD: 1, EUR: 1 / 0.9 } });
  return { result: await pay({ plugin, destination, quote }) };
}

const peerLiquidity = async () => (await ok(s.admin('GET', `/peers/${peer.id}`), 200)).liquidity.value;

beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a' });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const eur = await ok(s.admin('POST', '/assets', { code: 'EUR', scale: 2 }));
  await ok(s.admin('POST', `/assets/${eur.id}/liquidity`, { amount: '100000' }), 200);
  const wallet = async (name: string, assetCode: string) =>
    (await ok(s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/${name}`, assetCode }))).address as string;
  bobUsd = await wallet('bob', 'USD');
  carlosEur = await wallet('carlos', 'EUR');
  const jpy = await ok(s.admin('POST', '/assets', { code: 'JPY', scale: 0 }));
  await ok(s.admin('POST', `/assets/${jpy.id}/liquidity`, { amount: '100000' }), 200);
  kenjiJpy = await wallet('kenji', 'JPY');
  peer = await ok(
    s.admin('POST', '/peers', {
      staticIlpAddress: 'test.peer-x',
      assetCode: 'USD',
      http: { incoming: { authTokens: [TOKEN] }, outgoing: { authToken: 'outgoing-token-0123456789', endpoint: 'http://127.0.0.1:9/ilp' } },
      maxPacketAmount: '500',
    }),
  );
  await ok(s.admin('POST', `/peers/${peer.id}/liquidity`, { amount: '10000' }), 200);
  await ok(s.admin('POST', '/rates', { peerId: peer.id, sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9, rateTtlSecs: 86400 }));
  // One cent buys 1.5 yen: a packet can overshoot by rounding alone.
  await ok(s.admin('POST', '/rates', { peerId: peer.id, sourceAssetCode: 'USD', destinationAssetCode: 'JPY', rate: 150, rateTtlSecs: 86400 }));
});

// One STREAM packet of `amount` for an incoming payment, built by hand as any peer could, with
// the least the receiver must get (`min`, 0 by default); its reply, and the STREAM frames in it.
let sequence = 1;
async function rawPacket(to: Awaited<ReturnType<typeof credentials>>, amount: bigint, min = 0n) {
  const { destinationAddress, sharedSecret } = to;
  const key = await generatePskEncryptionKey(sharedSecret);
  const data = await new Packet(sequence++, IlpPacketType.Prepare, min.toString(), [new StreamMoneyFrame(1, 1)]).serializeAndEncrypt(key);
  const fulfillment = await generateFulfillment(await generateFulfillmentKey(sharedSecret), data);
  const prepare = {
    amount: amount.toString(),
    destination: destinationAddress,
    executionCondition: createHash('sha256').update(fulfillment).digest(),
    expiresAt: new Date(Date.now() + 10_000),
    data,
  };
  const reply = deserializeIlpReply(await link().post(serializeIlpPrepare(prepare))) as IlpReply;
  const stream = reply.data.length ? await Packet.decryptAndDeserialize(key, reply.data) : undefined;
  return { reply, frames: stream?.frames ?? [], received: stream?.prepareAmount.toString() };
}

const maxMoney = (frames: Awaited<ReturnType<typeof rawPacket>>['frames']) => {
  const frame = frames.find((f) => f.type === FrameType.StreamMaxMoney) as StreamMaxMoneyFrame | undefined;
  return frame && { receiveMax: frame.receiveMax.toString(), totalReceived: frame.totalReceived.toString() };
};
afterAll(() => s.stop());

describe('ILP connector', () => {
  it('answers ILDCP with the peer address and asset this node knows the peer by', async () => {
    const reply = await link().post(serializeIldcpRequest({ expiresAt: new Date(Date.now() + 30_000) }));
    expect(deserializeIldcpResponse(reply)).toEqual({ clientAddress: 'test.peer-x', assetCode: 'USD', assetScale: 2 });
  });

  it('refuses an unknown token with 401 and a body that is no packet with 400, as problem+json', async () => {
    const bad = await fetch(s.connectorUrl, {
      method: 'POST',
      headers: { authorization: 'Bearer not-a-token-of-any-peer', 'content-type': 'application/octet-stream' },
      body: 'x',
    });
    expect(bad.status).toBe(401);
    expect(bad.headers.get('content-type')).toBe('application/problem+json');
    const garbage = await fetch(s.connectorUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
      body: 'not a packet',
    });
    expect(garbage.status).toBe(400);
    expect((await garbage.json()).code).toBe('invalid_packet');
  });

  // D7: a valid Prepare followed by 7 garbage bytes was accepted and fulfilled.
  it('takes exactly one Prepare: trailing bytes or a length written the long way are 400 invalid_packet, and move nothing', async () => {
    const target = await intent(bobUsd, '500');
    const { destinationAddress } = await credentials(target.url);
    const prepare = serializeIlpPrepare({
      amount: '0',
      destination: destinationAddress,
      executionCondition: Buffer.alloc(32, 1),
      expiresAt: new Date(Date.now() + 30_000),
      data: Buffer.alloc(0),
    });
    const before = await peerLiquidity();
    const send = (body: Buffer) =>
      fetch(s.connectorUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(body),
      });
    const trailing = await send(Buffer.concat([prepare, Buffer.from('garbage')]));
    expect(trailing.status).toBe(400);
    expect(await trailing.json()).toMatchObject({ code: 'invalid_packet', detail: expect.stringContaining('exactly one') });
    // The same envelope with its length written in two bytes (0x82 0x00 0xNN) where one will do.
    expect(prepare[1]).toBe(0x81);
    const long = Buffer.concat([prepare.subarray(0, 1), Buffer.from([0x82, 0x00, prepare[2]]), prepare.subarray(3)]);
    expect((await send(long)).status).toBe(400);
    expect((await send(prepare)).status).toBe(200); // the packet itself is fine
    expect(await peerLiquidity()).toBe(before);
    expect((await ok(s.admin('GET', `/payment-intents/${target.id}`), 200)).receivedAmount.value).toBe('0');
  });

  it('reads the Authorization header by the RFC 6750 grammar', async () => {
    const ildcp = new Uint8Array(serializeIldcpRequest({ expiresAt: new Date(Date.now() + 30_000) }));
    const status = async (authorization: string) =>
      (await fetch(s.connectorUrl, { method: 'POST', headers: { authorization, 'content-type': 'application/octet-stream' }, body: ildcp })).status;
    // The scheme is case-insensitive and one or more spaces may follow it (RFC 9110, RFC 6750);
    // white space around the whole value is not part of it (HTTP strips it).
    for (const ok of [`Bearer ${TOKEN}`, `bearer ${TOKEN}`, `BEARER ${TOKEN}`, `Bearer  ${TOKEN}`]) expect(await status(ok), ok).toBe(200);
    for (const bad of [`Bearer\t${TOKEN}`, `Bearer ${TOKEN} x`, `Bearer${TOKEN}`, `Bearer ${TOKEN}=x`, `Token ${TOKEN}`, `Bearer "${TOKEN}"`, TOKEN]) {
      expect(await status(bad), bad).toBe(401);
    }
  });

  it('delivers a STREAM payment to an incoming payment in packets of at most maxPacketAmount, exactly, and settles each with the peer', async () => {
    const target = await intent(bobUsd, '1234');
    const before = await peerLiquidity();
    const { sent, plugin } = link();
    const { result } = await payIntent(target, 1234n, plugin);
    expect(result.error).toBeUndefined();
    expect(result.amountDelivered).toBe(1234n);
    const read = await ok(s.admin('GET', `/payment-intents/${target.id}`), 200);
    expect(read).toMatchObject({ state: 'completed', receivedAmount: { value: '1234' } });
    expect(BigInt(before) - BigInt(await peerLiquidity())).toBe(1234n);
    const fulfilled = sent.filter((p) => p.length > 0).length;
    expect(fulfilled).toBeGreaterThanOrEqual(3); // 500 + 500 + 234 at least, besides the probes
    const balances = await ledger(s);
    expect(balances.get(`intent:${target.id}`)).toBe(units(1234));
    expect(sum(balances)).toBe(0n);
  });

  it('converts a packet into the incoming payment asset at the peer rate, through both assets liquidity', async () => {
    const target = await intent(carlosEur, '900', 'EUR');
    const { result } = await payIntent(target, 900n);
    expect(result.error).toBeUndefined();
    expect(result.amountDelivered).toBe(900n);
    expect(result.amountSent).toBe(1000n);
    const balances = await ledger(s);
    expect(balances.get(`intent:${target.id}`)).toBe(units(900));
    expect(sum(balances)).toBe(0n);
  });

  it('credits a packet delivered twice once, and fulfills it both times', async () => {
    const target = await intent(bobUsd, '100');
    const { sent, plugin } = link();
    const { result } = await payIntent(target, 100n, plugin);
    expect(result.error).toBeUndefined();
    // Every packet of the payment again (probes and the one that paid), as a peer retrying would.
    const again = await Promise.all(sent.map(async (p) => deserializeIlpReply(await link().post(p))));
    expect(again.filter(isFulfill)).toHaveLength(1);
    expect((await ok(s.admin('GET', `/payment-intents/${target.id}`), 200)).receivedAmount.value).toBe('100');
    expect((await ledger(s)).get(`intent:${target.id}`)).toBe(units(100));
  });

  it('declines packets for a completed incoming payment for good, so that the sender stops at once', async () => {
    const target = await intent(bobUsd, '50');
    const kept = await credentials(target.url); // read while it could still receive
    await payIntent(target, 50n);
    const plugin = link().plugin;
    const destination = await setupPayment({ plugin, ...kept });
    const quote = await startQuote({ plugin, destination, amountToDeliver: 10n, sourceAsset: { code: 'USD', scale: 2 } });
    const started = Date.now();
    const result = await pay({ plugin, destination, quote });
    expect(result.error).toBe('ClosedByReceiver');
    expect(result.amountSent).toBe(0n);
    expect(Date.now() - started).toBeLessThan(2000);
    expect((await ok(s.admin('GET', `/payment-intents/${target.id}`), 200)).receivedAmount.value).toBe('50');
  });

  it('refuses a packet that would take an incoming payment past its amount: F99 with StreamMaxMoney, nothing moved', async () => {
    await ok(s.admin('PATCH', `/peers/${peer.id}`, { maxPacketAmount: null }), 200);
    try {
      const target = await intent(bobUsd, '300');
      const to = await credentials(target.url);
      const [liquidity, books] = [await peerLiquidity(), await ledger(s)];
      const big = await rawPacket(to, 5000n);
      expect(isReject(big.reply) && (big.reply as IlpReject).code).toBe('F99');
      expect(maxMoney(big.frames)).toEqual({ receiveMax: '300', totalReceived: '0' });
      expect(await ok(s.admin('GET', `/payment-intents/${target.id}`), 200)).toMatchObject({ state: 'pending', receivedAmount: { value: '0' } });
      expect(await peerLiquidity()).toBe(liquidity);

      // 103 fits; 250 more would make 353 of 300; the 197 left fits exactly and completes it.
      expect(isFulfill((await rawPacket(to, 103n)).reply)).toBe(true);
      const over = await rawPacket(to, 250n);
      expect(isReject(over.reply) && (over.reply as IlpReject).code).toBe('F99');
      expect(maxMoney(over.frames)).toEqual({ receiveMax: '300', totalReceived: '103' });
      expect(isFulfill((await rawPacket(to, 197n)).reply)).toBe(true);
      expect(await ok(s.admin('GET', `/payment-intents/${target.id}`), 200)).toMatchObject({ state: 'completed', receivedAmount: { value: '300' } });
      expect(BigInt(liquidity) - BigInt(await peerLiquidity())).toBe(300n);
      const after = await ledger(s);
      expect(after.get(`intent:${target.id}`)).toBe(units(300));
      expect((books.get(`peer:${peer.id}`) ?? 0n) - (after.get(`peer:${peer.id}`) ?? 0n)).toBe(units(300));
      expect(sum(after)).toBe(0n);
      // Once it is complete, any packet is declined for good (a ConnectionClose, no StreamMaxMoney).
      const late = await rawPacket(to, 1n);
      expect(isReject(late.reply) && (late.reply as IlpReject).code).toBe('F99');
      expect(late.frames.some((f) => f.type === FrameType.ConnectionClose)).toBe(true);
    } finally {
      await ok(s.admin('PATCH', `/peers/${peer.id}`, { maxPacketAmount: '500' }), 200);
    }
  });

  // Issue 28 item 3: 20 of 20 such packets were fulfilled, and nothing was booked on either side.
  it('refuses a packet worth nothing in the incoming payment’s asset (1 cent at 0.9 is 0 euro cents): F03 with the STREAM reply that it brought 0, nothing moved', async () => {
    const target = await intent(carlosEur, '900', 'EUR');
    const to = await credentials(target.url);
    const [liquidity, books] = [await peerLiquidity(), await ledger(s)];
    for (let i = 0; i < 20; i++) {
      // The least the sender asks the receiver to get is 0, so STREAM's own check lets it through.
      const { reply, received } = await rawPacket(to, 1n, 0n);
      expect(isReject(reply) && (reply as IlpReject).code).toBe('F03'); // final for pay, whichever version
      expect(received).toBe('0'); // the receiver's own answer: what the packet brought it
    }
    expect(await ok(s.admin('GET', `/payment-intents/${target.id}`), 200)).toMatchObject({ state: 'pending', receivedAmount: { value: '0' } });
    expect(await peerLiquidity()).toBe(liquidity);
    expect(await ledger(s)).toEqual(books);
    // Two cents bring one: that one is paid, and booked.
    expect(isFulfill((await rawPacket(to, 2n, 1n)).reply)).toBe(true);
    expect((await ok(s.admin('GET', `/payment-intents/${target.id}`), 200)).receivedAmount.value).toBe('1');
    expect(BigInt(liquidity) - BigInt(await peerLiquidity())).toBe(2n);
  });

  it('across a conversion, takes only the smallest packet that reaches the amount, crediting the amount exactly', async () => {
    // 101 yen asked: 67 cents bring 100 (short), 68 bring 102 (the smallest that reaches it: the
    // intent gets 101 and the node keeps the rounding's 1), 69 bring 103 (68 would do: refused).
    const jpyTarget = await ok(
      s.admin('POST', '/payment-intents', { walletAddress: kenjiJpy, incomingAmount: { value: '101', assetCode: 'JPY', assetScale: 0 } }),
    );
    const to = await credentials(jpyTarget.url);
    const liquidity = await peerLiquidity();
    const over = await rawPacket(to, 69n);
    expect(isReject(over.reply) && (over.reply as IlpReject).code).toBe('F99');
    expect(maxMoney(over.frames)).toEqual({ receiveMax: '101', totalReceived: '0' });
    expect(isFulfill((await rawPacket(to, 68n)).reply)).toBe(true);
    expect(await ok(s.admin('GET', `/payment-intents/${jpyTarget.id}`), 200)).toMatchObject({ state: 'completed', receivedAmount: { value: '101' } });
    expect(BigInt(liquidity) - BigInt(await peerLiquidity())).toBe(68n);
    const after = await ledger(s);
    expect(after.get(`intent:${jpyTarget.id}`)).toBe(units(101) * 100n); // scale 0: 10^20 units a yen
    expect(sum(after)).toBe(0n);
  });

  it('answers an expired packet R00 and a packet for another node F02', async () => {
    const expired = deserializeIlpReply(
      await link().post(
        serializeIlpPrepare({
          amount: '1',
          destination: 'test.node-a.x',
          executionCondition: Buffer.alloc(32),
          expiresAt: new Date(Date.now() - 1000),
          data: Buffer.alloc(0),
        }),
      ),
    ) as IlpReply;
    expect(isReject(expired) && expired.code).toBe('R00');
    const elsewhere = deserializeIlpReply(
      await link().post(
        serializeIlpPrepare({
          amount: '1',
          destination: 'test.node-z.x',
          executionCondition: Buffer.alloc(32),
          expiresAt: new Date(Date.now() + 10_000),
          data: Buffer.alloc(0),
        }),
      ),
    ) as IlpReply;
    expect(isReject(elsewhere) && elsewhere.code).toBe('F02');
  });

  it('answers T04 when the peer has too little liquidity, and credits nothing', async () => {
    await ok(s.admin('POST', `/peers/${peer.id}/liquidity-withdrawals`, { amount: await peerLiquidity() }), 200);
    const target = await intent(bobUsd, '10');
    const plugin = link().plugin;
    const destination = await setupPayment({ plugin, ...(await credentials(target.url)) });
    const quote = await startQuote({ plugin, destination, amountToDeliver: 10n, sourceAsset: { code: 'USD', scale: 2 } });
    const result = await pay({ plugin, destination, quote });
    expect(result.error).toBe('IdleTimeout'); // T04 is temporary: the sender retried until it gave up
    expect((await ok(s.admin('GET', `/payment-intents/${target.id}`), 200)).receivedAmount.value).toBe('0');
    expect(await peerLiquidity()).toBe('0');
  });
});
