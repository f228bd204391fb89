import { invalidField } from './errors';
import type { Node } from './node';
import { canonicalBase, isUnderBase } from './wallet-address-url';

// Things the payment resources share: their public URLs on the node's resource server (a payment
// intent is Open Payments' incoming payment, which quotes accept as `receiver` beside the bare
// id), what an id looks like, and state conflicts.
export const intentUrl = (node: Node, id: string) => `${node.urls.resourceServer}/incoming-payments/${id}`;
export const quoteUrl = (node: Node, id: string) => `${node.urls.resourceServer}/quotes/${id}`;
export const outgoingPaymentUrl = (node: Node, id: string) => `${node.urls.resourceServer}/outgoing-payments/${id}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// Whether a path's {id} can name a resource at all: one that cannot is not looked up (404).
export const isResourceId = (id: string) => UUID.test(id);

// The id a resource's URL names under `prefix` (intentUrl(node, ''), quoteUrl(node, '')), compared
// as every URL of this service is (canonicalBase: no case, no trailing slash); undefined for a URL
// elsewhere. `https://X/Incoming-Payments/<ID>/` is that payment.
export function idIn(prefix: string, url: string): string | undefined {
  const base = `${canonicalBase(prefix)}/`;
  const canonical = canonicalBase(url);
  return canonical.startsWith(base) && UUID.test(canonical.slice(base.length)) ? canonical.slice(base.length) : undefined;
}

// A quote's receiver: a payment intent of this node (its id, or its URL), or an incoming payment
// on another node (any other http(s) URL) or a payment pointer ($host/path: lib/ilp/spsp-pay.ts),
// for which this answers undefined.
export function localIntentId(node: Node, receiver: string): string | undefined {
  if (UUID.test(receiver)) return receiver.toLowerCase();
  if (receiver.startsWith('$')) return undefined;
  const id = idIn(intentUrl(node, ''), receiver);
  if (id) return id;
  const prefix = intentUrl(node, '');
  const url = URL.canParse(receiver) ? new URL(receiver) : undefined;
  if ((url?.protocol === 'https:' || url?.protocol === 'http:') && !isUnderBase(receiver, prefix)) return undefined;
  const message = `must be a payment intent id, its URL (${prefix}<id>), the URL of an incoming payment on another node, or a payment pointer`;
  throw invalidField('receiver', message);
}
