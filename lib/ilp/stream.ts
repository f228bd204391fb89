import { StreamServer } from '@interledger/stream-receiver';
import { hmac, ReplyBuilder } from '@interledger/stream-receiver/dist/src/utils';
import { type IlpAddress, IlpError, type IlpPrepare, type IlpReject } from 'ilp-packet';
import { generatePskEncryptionKey } from 'ilp-protocol-stream/dist/src/crypto';
import { type Frame, FrameType, Packet, StreamMaxMoneyFrame } from 'ilp-protocol-stream/dist/src/packet';
import type { IntentRecord } from '../payment-intents/schemas';
import { derivedKey } from '../platform/secrets';
import type { Node } from '../shared/node';

// STREAM credentials for an incoming payment, derived statelessly from STREAM_SECRET, as a
// stateless STREAM receiver does: the ILP address (under this node's ILP_ADDRESS) carries the
// payment's id, encrypted, so that the receiver can tell which payment a packet pays and derive
// the same shared secret again, with nothing stored.
// One server per ILP address: each tenant's intents receive under its own.
const servers = new Map<string, StreamServer>();
const serverSecret = (node: Node) => derivedKey(node, 'STREAM_SECRET', 'stream');

export async function streamServer(node: Node): Promise<StreamServer> {
  let server = servers.get(node.ilpAddress);
  if (!server) {
    server = new StreamServer({ serverSecret: await serverSecret(node), serverAddress: node.ilpAddress });
    servers.set(node.ilpAddress, server);
  }
  return server;
}

// The money stream of a STREAM connection (the one @interledger/pay and others use).
const MONEY_STREAM = 1;
const MAX_U64 = 2n ** 64n - 1n;
const u64 = (n: bigint) => (n < 0n ? 0n : n > MAX_U64 ? MAX_U64 : n).toString();

// A reject that carries this receiver's STREAM reply (Interledger RFC 29), encrypted under the
// connection's secret: what the packet brought here (`received`, in the intent's asset) and
// `frames`. @interledger/stream-receiver writes such replies only for the answers it makes
// itself, so this re-derives the connection's secret from the address's token the way that
// receiver does (its shared secret is HMAC(HMAC(server secret, label), token)).
async function streamReject(node: Node, prepare: IlpPrepare, code: IlpError, received: bigint, frames: Frame[] = []): Promise<IlpReject> {
  const key = await connectionKey(node, prepare);
  const request = await Packet.decryptAndDeserialize(key, prepare.data); // the receiver decrypted it already
  return new ReplyBuilder()
    .setIlpAddress(node.ilpAddress as IlpAddress)
    .setEncryptionKey(key)
    .setSequence(request.sequence)
    .setReceivedAmount(u64(received))
    .addFrames(...frames)
    .buildReject(code);
}

async function connectionKey(node: Node, prepare: IlpPrepare): Promise<Buffer> {
  const token = Buffer.from(prepare.destination.slice(node.ilpAddress.length + 1).split('.')[0], 'base64');
  return generatePskEncryptionKey(hmac(hmac(await serverSecret(node), Buffer.from('ilp_stream_shared_secret')), token));
}

// Whether the packet closes its STREAM connection (a ConnectionClose frame: the sender is done).
export async function closesConnection(node: Node, prepare: IlpPrepare): Promise<boolean> {
  try {
    const packet = await Packet.decryptAndDeserialize(await connectionKey(node, prepare), prepare.data);
    return packet.frames.some((f) => f.type === FrameType.ConnectionClose);
  } catch {
    return false; // not a STREAM packet of this connection
  }
}

// Money past what the receiver takes: F99 with a StreamMaxMoney frame that tells the sender the
// receiver's receiveMax and totalReceived, as STREAM prescribes.
export const receiveMaxReject = (node: Node, prepare: IlpPrepare, received: bigint, receiveMax: bigint, totalReceived: bigint) =>
  streamReject(node, prepare, IlpError.F99_APPLICATION_ERROR, received, [new StreamMaxMoneyFrame(MONEY_STREAM, u64(receiveMax), u64(totalReceived))]);

// A paying packet worth nothing in the intent's asset (1 cent at 0.9 is 0.9 of a euro cent, which
// rounds down to 0): F03, "more precision than the destination holds", with the reply that says
// the receiver got 0. A Fulfill would be paid on the sender's books and booked on none here. pay
// takes F03 as final (0.4.0-alpha.9 ends on every F-code but F08 and F99; later versions go on
// after F04 and F05 too, not after F03).
export const worthNothingReject = (node: Node, prepare: IlpPrepare) => streamReject(node, prepare, IlpError.F03_INVALID_AMOUNT, 0n);

// What a receiver's reject says it can still take on the money stream (receiveMax less
// totalReceived), if it says so; undefined for any other reject.
export async function receiveRoom(sharedSecret: Buffer, data: Buffer): Promise<bigint | undefined> {
  if (!data.length) return undefined;
  try {
    const packet = await Packet.decryptAndDeserialize(await generatePskEncryptionKey(sharedSecret), data);
    const max = packet.frames.find((f): f is StreamMaxMoneyFrame => f.type === FrameType.StreamMaxMoney && f.streamId.equals(MONEY_STREAM));
    if (!max) return undefined;
    const room = BigInt(max.receiveMax.toString()) - BigInt(max.totalReceived.toString());
    return room < 0n ? 0n : room;
  } catch {
    return undefined;
  }
}

export async function streamCredentials(node: Node, intent: Pick<IntentRecord, 'id' | 'assetCode' | 'assetScale'>) {
  const { ilpAddress, sharedSecret } = (await streamServer(node)).generateCredentials({
    paymentTag: intent.id,
    asset: { code: intent.assetCode, scale: intent.assetScale },
  });
  return { type: 'ilp' as const, ilpAddress, sharedSecret: sharedSecret.toString('base64url') };
}

// The amount a STREAM packet names (`prepareAmount`), read with the connection's shared secret:
// in a sender's Prepare, the least the receiver must get for it; in the receiver's reply, what it
// got. Undefined when the data is not a STREAM packet under that secret.
export async function streamAmount(sharedSecret: Buffer, data: Buffer): Promise<bigint | undefined> {
  if (!data.length) return undefined;
  try {
    const packet = await Packet.decryptAndDeserialize(await generatePskEncryptionKey(sharedSecret), data);
    return BigInt(packet.prepareAmount.toString());
  } catch {
    return undefined;
  }
}
