import type { AccessItem } from './schemas';

// What a client may be granted without the wallet owner's consent (least privilege). Rafiki issues
// every incoming-payment and quote grant at once (read-all too, and any identifier or none; only
// list-all waits for consent by default). Here, at once, a client may only act on what it creates:
// create incoming payments, and read, list or complete the ones it created (the resource server
// scopes `read`, `list` and `complete` to the client). Anything that reaches other people's
// resources (`read-all`, `list-all`) needs the owner's consent, an interactive grant, which this
// server asks for outgoing payments only. One more thing is issued at once: `read` of one incoming payment,
// named by its URL as the identifier. Whoever is to pay an incoming payment is given its URL, and
// its node must read it (amounts, STREAM credentials) to pay it; holding the URL is the capability,
// and the payment's metadata stays hidden from such a reader.
export type GrantDecision = { outcome: 'issue' } | { outcome: 'interact' } | { outcome: 'refuse'; detail: string };

const CONSENT = "the wallet owner's consent (an interactive grant), which this authorization server asks for outgoing payments only";

// `paymentUrlPrefix`: this resource server's incoming payment URLs start with it.
export function grantPolicy(access: AccessItem[], paymentUrlPrefix: string): GrantDecision {
  if (access.some((a) => a.type === 'outgoing-payment')) return { outcome: 'interact' };
  for (const item of access) {
    const all = (item.actions as string[]).filter((a) => a.endsWith('-all'));
    if (all.length) return { outcome: 'refuse', detail: `${item.type} ${all.join(' and ')} reach resources the client did not create: they need ${CONSENT}` };
    const onePayment = item.type === 'incoming-payment' && item.identifier?.startsWith(paymentUrlPrefix);
    if (onePayment && (item.actions.length !== 1 || item.actions[0] !== 'read'))
      return { outcome: 'refuse', detail: 'An incoming payment URL as the identifier grants read of that payment only: ask for actions ["read"]' };
  }
  return { outcome: 'issue' };
}
