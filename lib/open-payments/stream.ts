import { StreamServer } from '@interledger/stream-receiver';
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
