import * as z from 'zod';
import { ilpAddress, type PeerRecord } from '../peers/schemas';
import { boundedFetch } from '../platform/net/fetch';
import { invalidField } from '../shared/errors';
import type { Node } from '../shared/node';
import { ilpErrors } from './errors';
import { type Asset, destinationAsset, routeFor } from './quote';
import type { RemoteReceiver } from './receiver';
import { SPSP_CONTENT_TYPE } from './spsp';

// Paying a payment pointer (SPSP, ./spsp.ts): its connection asked for over https, then paid over
// STREAM as an incoming payment on another node is (./quote.ts, lib/payments/methods/ilp.ts).

// The https URL a payment pointer names (RFC 26): `$host/path` is https://host/path, `$host`
// https://host/.well-known/pay. Undefined for a receiver that is not a payment pointer; a malformed
// one is 400.
export function paymentPointerUrl(receiver: string): string | undefined {
  if (!receiver.startsWith('$')) return undefined;
  const bad = () => invalidField('receiver', 'is not a payment pointer ($host or $host/path)');
  const rest = receiver.slice(1);
  if (!/^[^/?#@\s]+(\/[^?#\s]*)?$/.test(rest)) throw bad();
  let url: URL;
  try {
    url = new URL(`https://${rest}`);
  } catch {
    throw bad();
  }
  if (url.pathname === '/') url.pathname = '/.well-known/pay';
  return url.href;
}

const spspResponse = z.object({
  destination_account: ilpAddress,
  shared_secret: z
    .string()
    .regex(/^[A-Za-z0-9+/_-]+=*$/)
    .refine((s) => Buffer.from(s, 'base64').length === 32, 'must be 32 bytes, base64'),
});

// A STREAM connection to the payment pointer at `url` (its https URL), read through the one bounded
// fetch (lib/platform/net/fetch.ts). None there is receiver_not_found; no answer, or a failure,
// receiver_unreachable; an answer that is not SPSP, receiver_invalid.
export async function readSpsp(node: Node, url: string): Promise<{ ilpAddress: string; sharedSecret: Buffer }> {
  let res: Response;
  try {
    res = await boundedFetch(url, { headers: { accept: SPSP_CONTENT_TYPE } }, { allowPrivate: node.allowPrivateFetch });
  } catch (e) {
    throw ilpErrors.receiverUnreachable(`Could not read the payment pointer at ${url}: ${(e as Error).message}`);
  }
  if (res.status === 404) throw ilpErrors.receiverNotFound(`No payment pointer at ${url}`);
  if (!res.ok) throw ilpErrors.receiverUnreachable(`Could not read the payment pointer at ${url} (HTTP ${res.status})`);
  let body: unknown;
  try {
    body = await res.json();
  } catch {
    throw ilpErrors.receiverInvalid(`The answer of ${url} is not JSON`);
  }
  const parsed = spspResponse.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw ilpErrors.receiverInvalid(`The answer of ${url} is not an SPSP answer: ${issue?.path.join('.')} ${issue?.message}`);
  }
  return { ilpAddress: parsed.data.destination_account, sharedSecret: Buffer.from(parsed.data.shared_secret, 'base64') };
}

// A payment pointer's connection as a receiver: always open, asking for no amount (what it takes
// is the sender's to say), in `asset`.
const receiverAt = (url: string, connection: { ilpAddress: string; sharedSecret: Buffer }, asset: Asset): RemoteReceiver => ({
  url,
  state: 'open',
  asset,
  incoming: null,
  received: 0n,
  ...connection,
});

// For a quote: the connection, the route to it, and its asset, which SPSP does not say and STREAM
// does (its receiver's asset details, one round trip).
export async function quoteSpsp(node: Node, url: string, source: Asset): Promise<{ remote: RemoteReceiver; route: { peer: PeerRecord; rate: number } }> {
  const connection = await readSpsp(node, url);
  const route = await routeFor(node, connection, source);
  return { remote: receiverAt(url, connection, await destinationAsset(node, source, connection, route)), route };
}

// For a payment's attempt: a new connection, in the asset its quote found.
export const spspReceiver = async (node: Node, url: string, asset: Asset): Promise<RemoteReceiver> => receiverAt(url, await readSpsp(node, url), asset);
