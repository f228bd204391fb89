import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deserializeIlpPrepare, type IlpPrepare, type IlpReject, isFulfill, serializeIlpFulfill, serializeIlpReject } from 'ilp-packet';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAsset, moveLiquidity } from '../../../lib/assets';
import { peerReconciliation } from '../../../lib/payments';
import { forwardPacket } from '../../../lib/payments/forward';
import { sweepForwards } from '../../../lib/payments/forwarded';
import { createPeer, getPeerRecord, movePeerLiquidity } from '../../../lib/peers';
import type { PeerRecord } from '../../../lib/peers/schemas';
import { pushRate } from '../../../lib/rates';
import { inMemory, ledgerOf, withFaults } from '../../harness/in-memory';
import { peerBody } from '../../harness/peers';

// Forwarding in memory (lib/payments/forward.ts): a packet from peer A (USD) for an address this
// node does not serve goes on to the peer that routes to it, B (USD) or C (EUR), a local HTTP
// server playing that peer's connector. What each answer books: a Fulfill moves A's line down and
// the next peer's up (across assets through both assets' liquidity, at the rate this node gives
// that peer); a Reject, a wrong preimage, no route, too large or too late move nothing; an answer
// lost, or a crash before it, books the packet as not paid and lists it for reconciliation.
const mem = inMemory({ ALLOW_PRIVATE_PEERS: 'operator' });

type Answer = 'fulfill' | 'reject' | 'wrong' | 'hangup';
let answer: Answer = 'fulfill';
let seen: IlpPrepare[] = [];
let server: Server;
let endpoint: string;
const fulfillments = new Map<string, Buffer>(); // condition hex -> preimage

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const prepare = deserializeIlpPrepare(Buffer.concat(chunks));
      seen.push(prepare);
      if (answer === 'hangup') return req.socket.destroy();
      const body =
        answer === 'reject'
          ? serializeIlpReject({ code: 'F99', message: 'no', triggeredBy: 'test.node-c', data: Buffer.from('theirs') })
          : serializeIlpFulfill({
              fulfillment: answer === 'wrong' ? randomBytes(32) : fulfillments.get(prepare.executionCondition.toString('hex'))!,
              data: Buffer.alloc(0),
            });
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}/ilp`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

let a: PeerRecord; // USD, where packets come from
let b: PeerRecord; // USD, test.node-b, routes test.far
let c: PeerRecord; // EUR, test.node-c
let n = 0;
beforeEach(async () => {
  answer = 'fulfill';
  seen = [];
  const usd = await createAsset(mem.node, { code: 'USD', scale: 2 });
  const eur = await createAsset(mem.node, { code: 'EUR', scale: 2 });
  await moveLiquidity(mem.node, eur.id, '100000', 'deposit');
  const peer = async (over: Record<string, unknown>) => getPeerRecord(mem.node, (await createPeer(mem.node, peerBody(++n, over))).id);
  const http = (i: number) => ({
    incoming: { authTokens: [`incoming-token-forward-${i}-${n}`] },
    outgoing: { authToken: `outgoing-token-fwd-${i}`, endpoint },
  });
  a = await peer({ staticIlpAddress: 'test.node-a', http: http(1), routes: ['test.node-c.via-a'] });
  b = await peer({ staticIlpAddress: 'test.node-b', http: http(2), routes: ['test.far'], maxPacketAmount: '500' });
  c = await peer({ staticIlpAddress: 'test.node-c', assetCode: 'EUR', http: http(3) });
  await movePeerLiquidity(mem.node, a.id, '10000', 'deposit');
  await pushRate(mem.node, { sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9, peerId: c.id, rateTtlSecs: 3600 } as never);
  void usd;
});

const units = (cents: bigint | number) => BigInt(cents) * 10n ** 18n;
function prepare(destination: string, amount: number, expiresInMs = 10_000): IlpPrepare {
  const fulfillment = randomBytes(32);
  const executionCondition = createHash('sha256').update(fulfillment).digest();
  fulfillments.set(executionCondition.toString('hex'), fulfillment);
  return { destination, amount: String(amount), executionCondition, expiresAt: new Date(Date.now() + expiresInMs), data: Buffer.from('stream') };
}
// Every non-zero balance of the ledger, the holds included (each packet's comes back to zero).
const books = () => new Map([...ledgerOf(mem.db)].filter(([, v]) => v !== 0n));
const moved = (before: Map<string, bigint>) => {
  const after = books();
  const keys = new Set([...before.keys(), ...after.keys()]);
  return Object.fromEntries([...keys].map((k) => [k, (after.get(k) ?? 0n) - (before.get(k) ?? 0n)]).filter(([, v]) => v !== 0n));
};
const sum = (m: Map<string, bigint>) => [...m.values()].reduce((x, y) => x + y, 0n);

describe('forwarding', () => {
  it('sends a packet on to the longest route, shortened by the margin, and books a Fulfill from line to line', async () => {
    const before = books();
    const p = prepare('test.far.carol.x', 300);
    const reply = await forwardPacket(mem.node, a, p);
    expect(isFulfill(reply)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ destination: 'test.far.carol.x', amount: '300', executionCondition: p.executionCondition, data: p.data });
    expect(p.expiresAt.getTime() - seen[0].expiresAt.getTime()).toBe(1000);
    expect(moved(before)).toEqual({ [`peer:${a.id}`]: -units(300), [`peer:${b.id}`]: units(300) });
    expect(sum(books())).toBe(0n);
    // The same packet again (a retry) is fulfilled again and books nothing more.
    const again = await forwardPacket(mem.node, a, p);
    expect(isFulfill(again) && again.fulfillment.equals(fulfillments.get(p.executionCondition.toString('hex'))!)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(moved(before)).toEqual({ [`peer:${a.id}`]: -units(300), [`peer:${b.id}`]: units(300) });
  });

  it('converts into the next peer’s asset at the rate this node gives it, through both liquidity accounts', async () => {
    const before = books();
    const reply = await forwardPacket(mem.node, a, prepare('test.node-c.carol', 1000));
    expect(isFulfill(reply)).toBe(true);
    expect(seen[0].amount).toBe('900');
    const eurLiquidity = [...before.keys()].find((k) => k.startsWith('liquidity:'))!;
    const usdLiquidity = `liquidity:${a.assetId}`;
    expect(moved(before)).toEqual({ [`peer:${a.id}`]: -units(1000), [usdLiquidity]: units(1000), [eurLiquidity]: -units(900), [`peer:${c.id}`]: units(900) });
  });

  it('passes a Reject back as it came, and a wrong preimage as F05, moving nothing', async () => {
    const before = books();
    answer = 'reject';
    expect(await forwardPacket(mem.node, a, prepare('test.node-c.carol', 100))).toMatchObject({
      code: 'F99',
      triggeredBy: 'test.node-c',
      data: Buffer.from('theirs'),
    });
    answer = 'wrong';
    expect(await forwardPacket(mem.node, a, prepare('test.far.x', 100))).toMatchObject({ code: 'F05', triggeredBy: 'test.memory' });
    expect(moved(before)).toEqual({});
  });

  it('rejects, moving nothing and sending nothing: no route (never back where it came from) F02, over the next maxPacketAmount F08, too late R02, too little liquidity T04', async () => {
    const before = books();
    const reject = async (p: IlpPrepare) => (await forwardPacket(mem.node, a, p)) as IlpReject;
    expect(await reject(prepare('test.nowhere.x', 100))).toMatchObject({ code: 'F02', triggeredBy: 'test.memory' });
    expect((await reject(prepare('test.node-a.alice', 100))).code).toBe('F02'); // A's own address: not back to A
    const tooLarge = await reject(prepare('test.node-b.bob', 501));
    expect(tooLarge.code).toBe('F08');
    expect(tooLarge.data.length).toBeGreaterThan(0); // the amounts, for the sender to size its next packet
    expect((await reject(prepare('test.node-b.bob', 100, 1500))).code).toBe('R02');
    expect(isFulfill(await forwardPacket(mem.node, a, prepare('test.node-b.bob', 400)))).toBe(true);
    await movePeerLiquidity(mem.node, a.id, '9500', 'withdrawal'); // 100 left on A's line
    expect((await reject(prepare('test.node-b.bob', 200))).code).toBe('T04');
    expect(seen.map((k) => k.amount)).toEqual(['400']); // only the one that passed
    expect(moved(before)).toEqual({ [`peer:${a.id}`]: -units(9900), [`settlement:${a.assetId}`]: units(9500), [`peer:${b.id}`]: units(400) });
  });

  it("takes the next best route when the best is the incoming peer's own", async () => {
    await forwardPacket(mem.node, a, prepare('test.node-c.via-a.x', 100)); // A's route: C's prefix takes it
    expect(seen.map((k) => [k.destination, k.amount])).toEqual([['test.node-c.via-a.x', '90']]);
  });

  it('books a packet whose answer is lost as not paid, and lists it for reconciliation with the next peer', async () => {
    const before = books();
    answer = 'hangup';
    const p = prepare('test.far.x', 250);
    expect(await forwardPacket(mem.node, a, p)).toMatchObject({ code: 'T00', triggeredBy: 'test.memory' });
    expect(moved(before)).toEqual({});
    const listed = await peerReconciliation(mem.node, b.id, { to: new Date(Date.now() + 60_000).toISOString(), limit: 10 } as never);
    expect(listed.items).toEqual([
      expect.objectContaining({
        executionCondition: p.executionCondition.toString('hex'),
        paymentId: null,
        incomingPeerId: a.id,
        amount: { value: '250', assetCode: 'USD', assetScale: 2 },
        paymentAmount: { value: '250', assetCode: 'USD', assetScale: 2 },
      }),
    ]);
  });

  it('leaves a packet a crash cut pending, its money held, until the sweep books it as not paid once it expired', async () => {
    const before = books();
    const p = prepare('test.node-c.carol', 500, 3000);
    await expect(withFaults(['ilp-forward:after-reserve'], () => forwardPacket(mem.node, a, p))).rejects.toThrow(/Injected crash/);
    expect(moved(before)[`peer:${a.id}`]).toBe(-units(500)); // held
    expect(sum(books())).toBe(0n);
    expect(await sweepForwards(mem.node)).toBe(0); // not expired yet
    vi.useFakeTimers({ toFake: ['Date'], now: p.expiresAt.getTime() + 6_000 });
    try {
      expect(await sweepForwards(mem.node)).toBe(1);
    } finally {
      vi.useRealTimers();
    }
    expect(moved(before)).toEqual({});
    expect(await sweepForwards(mem.node)).toBe(0);
    const listed = await peerReconciliation(mem.node, c.id, { to: new Date(Date.now() + 60_000).toISOString(), limit: 10 } as never);
    expect(listed.total).toEqual({ count: 1, amount: { value: '450', assetCode: 'EUR', assetScale: 2 } });
    expect(listed.items[0]).toMatchObject({ incomingPeerId: a.id, paymentAmount: { value: '500', assetCode: 'USD', assetScale: 2 } });
  });
});
