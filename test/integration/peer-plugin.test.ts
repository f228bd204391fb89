import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { deserializeIlpReply, type IlpReject, serializeIlpPrepare, serializeIlpReply } from 'ilp-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PacketOut, PeerPlugin, type SendingHooks } from '../../lib/ilp/plugin';
import type { PeerRecord } from '../../lib/peers/schemas';
import { type Node, OPERATOR } from '../../lib/shared/node';

// The sending plugin's promise to the attempt that drives it: a packet's money is reserved only
// while pay still waits for it, and none after the attempt stops it. Its peer is a real HTTP
// server that answers every Prepare with a Reject after HOLD_MS; its ledger hooks keep a record
// of what they reserved and settled, so a reservation that is never settled shows.
const HOLD_MS = 800;
let peerServer: Server;
let endpoint: string;

beforeAll(async () => {
  peerServer = createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        const reject: IlpReject = { code: 'T04', message: 'no liquidity', triggeredBy: 'test.peer', data: Buffer.alloc(0) };
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(serializeIlpReply(reject));
      }, HOLD_MS),
    );
  });
  await new Promise<void>((r) => peerServer.listen(0, '127.0.0.1', r));
  endpoint = `http://127.0.0.1:${(peerServer.address() as AddressInfo).port}/ilp`;
});
afterAll(() => new Promise((r) => peerServer.close(r)));

function pluginWithBook() {
  const reserved: string[] = [];
  const settled: string[] = [];
  const hooks: SendingHooks = {
    reserve: async (k: PacketOut) => void reserved.push(k.id),
    settle: async (k: PacketOut) => void settled.push(k.id),
  };
  const peer = {
    id: 'peer-1',
    assetId: 'asset-usd',
    assetCode: 'USD',
    assetScale: 2,
    maxPacketAmount: null,
    http: { outgoing: { endpoint } },
    outgoingAuthToken: 'token',
  } as unknown as PeerRecord;
  const node = { ilpAddress: 'test.sender', tenant: OPERATOR, privatePeers: [OPERATOR.id] } as unknown as Node; // its peer is on this machine
  const plugin = new PeerPlugin({ node, peer, source: { code: 'USD', scale: 2 }, rate: 1, hooks });
  return { plugin, reserved, settled };
}

const prepare = (expiresInMs: number) =>
  serializeIlpPrepare({
    amount: '5',
    destination: 'test.receiver',
    executionCondition: randomBytes(32),
    expiresAt: new Date(Date.now() + expiresInMs),
    data: Buffer.alloc(0),
  });

describe('the sending plugin', () => {
  it('does not reserve a packet that waited its turn until too little of its expiry was left, and refuses it as temporary (pay sends it again)', async () => {
    const { plugin, reserved, settled } = pluginWithBook();
    // Three at once, each leaving with 2.5 s to its expiry (pay's 8.5 s, less the 5 s this node
    // waits past a packet's expiry for its answer and 1 s): two fill the window and take HOLD_MS
    // each; the third gets its turn with 1.7 s left, less than the 2 s the receiver's margin and
    // a round trip need.
    const packets = Array.from({ length: 3 }, () => prepare(8_500));
    const sending = packets.map((p) => plugin.sendData(p));
    expect(plugin.sending).toBe(3); // what pay may stop waiting for: the attempt reads it when pay ends
    const replies = (await Promise.all(sending)).map((b) => deserializeIlpReply(b) as IlpReject);
    expect(plugin.sending).toBe(0);
    expect(replies.map((r) => r.code)).toEqual(['T04', 'T04', 'T00']);
    expect(reserved).toHaveLength(2);
    expect([...settled].sort()).toEqual([...reserved].sort()); // every reservation settled
    expect(plugin.failure).toBeUndefined();
  });

  it('reserves nothing once stopped, and has every reservation made before on record when stop returns', async () => {
    const { plugin, reserved } = pluginWithBook();
    const sending = Array.from({ length: 8 }, () => plugin.sendData(prepare(10_000)));
    await new Promise((r) => setImmediate(r));
    await plugin.stop('the attempt ended');
    const atStop = [...reserved];
    const replies = (await Promise.all(sending)).map((b) => deserializeIlpReply(b) as IlpReject);
    expect(reserved).toEqual(atStop);
    expect(atStop.length).toBeLessThanOrEqual(2); // the packets in flight at once
    expect(replies.filter((r) => r.code === 'F02')).toHaveLength(8 - atStop.length);
  });
});
