import { randomUUID } from 'node:crypto';
import type { Node } from '../shared/node';
import { findWalletRecordByUrl } from '../wallet-addresses';
import { streamServer } from './stream';

// SPSP (Interledger RFC 9, over STREAM): a payment pointer ($host/path) names an https URL that
// answers `GET` with `Accept: application/spsp4+json` with a STREAM connection's ILP address and
// shared secret. Receiving: each of this node's wallet addresses answers so (unless
// ENABLE_SPSP_PAYMENT_POINTERS is off), with a connection that pays an open payment intent (no
// incomingAmount) made for it (./receive.ts). Sending: a quote's receiver may be a payment pointer
// (./spsp-pay.ts).
export const SPSP_CONTENT_TYPE = 'application/spsp4+json';

// How long the intent an SPSP connection pays stays open, from its first paying packet. The sender
// closing the connection completes it sooner (./receive.ts); a sender that comes back later asks
// for a new connection, as Web Monetization does.
export const SPSP_INTENT_LIFETIME_SECS = 3600;

// The connection's payment tag: the intent's id, chosen now, and the id of the wallet address it is for.
// Nothing is stored at the GET: the intent is made by the first paying packet (./receive.ts), so a
// flood of GETs makes nothing, and every intent made holds money a peer paid. The tag is sealed
// (encrypted and authenticated under STREAM_SECRET), so no one else can name an intent or address.
const TAG_PREFIX = 'spsp:';
export const spspTagOf = (tag: string): { intentId: string; walletAddressId: string } | undefined => {
  if (!tag.startsWith(TAG_PREFIX)) return undefined;
  const [intentId, walletAddressId] = tag.slice(TAG_PREFIX.length).split(':');
  return { intentId, walletAddressId };
};

// The SPSP answer of the wallet address at `url`: undefined when there is none, or it is inactive
// (404 either way, as Rafiki answers).
export async function spspAnswer(node: Node, url: string) {
  let wallet = await findWalletRecordByUrl(node, url);
  if (wallet?.status === 'inactive') wallet = await findWalletRecordByUrl(node, url, true); // perhaps active again
  if (!wallet || wallet.status === 'inactive') return undefined;
  const { ilpAddress, sharedSecret } = (await streamServer(node)).generateCredentials({
    paymentTag: `${TAG_PREFIX}${randomUUID()}:${wallet.id}`,
    asset: { code: wallet.assetCode, scale: wallet.assetScale },
  });
  return { destination_account: ilpAddress, shared_secret: sharedSecret.toString('base64'), receipts_enabled: false };
}
