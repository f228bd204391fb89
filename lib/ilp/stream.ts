import { StreamServer } from '@interledger/stream-receiver';
import { generatePskEncryptionKey } from 'ilp-protocol-stream/dist/src/crypto';
import { Packet } from 'ilp-protocol-stream/dist/src/packet';
import { config } from '../config';
import type { IntentRecord } from '../payment-intents/schemas';
import { derivedKey } from '../secrets';

// STREAM credentials for an incoming payment, derived statelessly from STREAM_SECRET, as a
// stateless STREAM receiver does: the ILP address (under this node's ILP_ADDRESS) carries the
// payment's id, encrypted, so that the receiver can tell which payment a packet pays and derive
// the same shared secret again, with nothing stored.
let server: StreamServer | undefined;

export async function streamServer(): Promise<StreamServer> {
  server ??= new StreamServer({ serverSecret: await derivedKey('STREAM_SECRET', 'stream'), serverAddress: config.ILP_ADDRESS });
  return server;
}

export async function streamCredentials(intent: IntentRecord) {
  const { ilpAddress, sharedSecret } = (await streamServer()).generateCredentials({
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
