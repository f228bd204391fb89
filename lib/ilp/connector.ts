import { deserializeIlpPrepare, type IlpPrepare, type IlpReply, serializeIlpPrepare, serializeIlpReply } from 'ilp-packet';
import { deserializeIldcpRequest, serializeIldcpResponse } from 'ilp-protocol-ildcp';
import type { PeerRecord } from '../peers/schemas';
import { logger } from '../platform/log';
import type { Node } from '../shared/node';
import { ilpErrors } from './errors';
import { amountTooLarge, reject } from './packets';
import { deliverLocally } from './receive';

// The ILP connector's side that peers call (ILP over HTTP, Interledger RFC 35): one Prepare from
// an authenticated peer in, its Fulfill or Reject out. In order: ILDCP (`peer.config`) tells the
// peer its address and asset; an expired packet is R00; one above the peer's maxPacketAmount is
// F08; a packet under this node's ILP_ADDRESS goes to its STREAM receiver (./receive.ts); any
// other goes to `forward` (lib/payments/forward.ts, handed in by the connector's handler: it books
// as the packets of payments do, which build on this folder), which routes it on to another peer
// or rejects it F02. A fault of ours is T00, never an HTTP error, so the sender retries.
export type Forward = (node: Node, from: PeerRecord, prepare: IlpPrepare) => Promise<IlpReply>;

export async function handlePacket(node: Node, peer: PeerRecord, packet: Buffer, forward: Forward): Promise<Buffer> {
  let prepare: IlpPrepare;
  try {
    prepare = deserializeIlpPrepare(packet);
  } catch (e) {
    throw ilpErrors.invalidPacket(`The body is not an ILP Prepare: ${(e as Error).message}`);
  }
  // Exactly one Prepare in its one (canonical OER) encoding: the reader stops at the packet's end,
  // so bytes after it, or a length written the long way, would otherwise pass unseen.
  if (!serializeIlpPrepare(prepare).equals(packet)) {
    throw ilpErrors.invalidPacket('The body must be exactly one ILP Prepare, in its canonical encoding, with nothing after it');
  }
  if (prepare.destination === 'peer.config') return ildcp(node, peer, prepare, packet);
  try {
    return serializeIlpReply(await answer(node, peer, prepare, forward));
  } catch (error) {
    logger.error('Packet failed', { peerId: peer.id, destination: prepare.destination, error: (error as Error).message });
    return serializeIlpReply(reject(node, 'T00', 'Internal error; retry the packet'));
  }
}

async function answer(node: Node, peer: PeerRecord, prepare: IlpPrepare, forward: Forward): Promise<IlpReply> {
  if (prepare.expiresAt.getTime() <= Date.now()) return reject(node, 'R00', `The packet expired at ${prepare.expiresAt.toISOString()}`);
  const amount = BigInt(prepare.amount);
  if (peer.maxPacketAmount !== null && amount > BigInt(peer.maxPacketAmount)) return amountTooLarge(node, amount, BigInt(peer.maxPacketAmount));
  if (prepare.destination.startsWith(`${node.ilpAddress}.`)) return deliverLocally(node, peer, prepare);
  return forward(node, peer, prepare);
}

// The peer's own address (as configured here) and the asset of the link.
function ildcp(node: Node, peer: PeerRecord, prepare: IlpPrepare, packet: Buffer): Buffer {
  try {
    deserializeIldcpRequest(packet);
  } catch (e) {
    return serializeIlpReply(reject(node, 'F00', `Not an ILDCP request: ${(e as Error).message}`));
  }
  // Its answer is a Fulfill: one that carried money would read to the peer as paid.
  if (prepare.amount !== '0') return serializeIlpReply(reject(node, 'F00', 'An ILDCP request carries no amount'));
  return serializeIldcpResponse({ clientAddress: peer.staticIlpAddress, assetCode: peer.assetCode, assetScale: peer.assetScale });
}
