import { createHmac } from 'node:crypto';
import type { Asset } from '../assets/schemas';
import type { PaymentIntent } from '../payment-intents/schemas';
import type { Payment } from '../payments/schemas';
import type { Peer } from '../peers/schemas';
import { canonicalJson } from '../platform/canonical-json';
import type { Amount } from '../shared/amounts';
import type { WebhookEventName } from './catalog';

// The webhook dialect of an FSP built on Rafiki's (WEBHOOK_DIALECT=rafiki, a tenant's
// webhookDialect): each of our events that Rafiki has goes under Rafiki's name with the `data`
// Rafiki's backend gives it (its models' toData, interledger/rafiki packages/backend/src), in
// Rafiki's body {id, type, data}, signed with Rafiki-Signature. Ours that Rafiki lacks go under our
// name with our data, in the same body (docs/webhooks.md has the table).

// Ours → Rafiki's. Not here (Rafiki has no such event): asset.updated, wallet_address.updated,
// grant.revoked, payment_intent.approved and .cancelled, liquidity_withdrawal.*.
export const rafikiEventTypes = {
  'payment.created': 'outgoing_payment.created',
  'payment.funded': 'outgoing_payment.funded',
  'payment.completed': 'outgoing_payment.completed',
  'payment.failed': 'outgoing_payment.failed',
  'payment.cancelled': 'outgoing_payment.cancelled',
  'payment_intent.created': 'incoming_payment.created',
  'payment_intent.completed': 'incoming_payment.completed',
  'payment_intent.expired': 'incoming_payment.expired',
  'wallet_address.not_found': 'wallet_address.not_found',
  'asset.liquidity_low': 'asset.liquidity_low',
  'peer.liquidity_low': 'peer.liquidity_low',
} as const satisfies Partial<Record<WebhookEventName, string>>;

export interface RafikiBody {
  id: string;
  type: string;
  data: unknown;
}

// What Rafiki's data names that ours does not hold: a payment's or an intent's wallet address id
// (ours name its URL), a peer's asset id (ours its code). The sender looks them up.
export interface RafikiRefs {
  walletAddressId?: string;
  assetId?: string;
}

// What an event's data needs looked up, read from the data itself.
export function refsNeeded(type: string, data: unknown): { walletAddress?: string; assetCode?: string } {
  if (type.startsWith('payment.') || type.startsWith('payment_intent.')) return { walletAddress: (data as { walletAddress: string }).walletAddress };
  if (type === 'peer.liquidity_low') return { assetCode: (data as Peer).assetCode };
  return {};
}

// Rafiki's amounts are ours ({value, assetCode, assetScale}, value a string), in its key order.
const amount = (a: Amount) => ({ value: a.value, assetCode: a.assetCode, assetScale: a.assetScale });
const ifSet = <K extends string, V>(key: K, value: V | null | undefined) => (value === null || value === undefined ? {} : ({ [key]: value } as Record<K, V>));
const required = (value: string | undefined, what: string) => {
  if (!value) throw new Error(`Rafiki's data needs ${what}`);
  return value;
};

// OutgoingPayment.toData: its state in Rafiki's enum (FUNDING, SENDING, COMPLETED, FAILED,
// CANCELLED, ours in upper case), sentAmount in the debit asset, and `balance`, what its account
// holds: nothing until funded or once cancelled; else what was funded less what was sent (and
// the fee, once completed), which Rafiki's FSP withdraws on completed and failed.
export function outgoingPaymentData(p: Payment, walletAddressId: string) {
  const left = BigInt(p.debitAmount.value) - BigInt(p.sentAmount.value) - (p.state === 'completed' ? BigInt(p.fee?.value ?? '0') : 0n);
  const balance = p.state === 'funding' || p.state === 'cancelled' || left < 0n ? 0n : left;
  return {
    id: p.id,
    walletAddressId,
    ...ifSet('client', p.client),
    state: p.state.toUpperCase(),
    receiver: p.receiver,
    debitAmount: amount(p.debitAmount),
    receiveAmount: amount(p.receiveAmount),
    sentAmount: amount(p.sentAmount),
    stateAttempts: 0, // Rafiki counts its worker's retries of a state; ours are not counted
    createdAt: p.createdAt,
    balance: balance.toString(),
    ...ifSet('metadata', p.metadata),
    ...ifSet('error', p.failureReason ?? p.cancelReason),
    ...ifSet('grantId', p.grantId),
  };
}

// IncomingPayment.toData: its id is the last segment of its Open Payments URL (ours: the intent's
// id), receivedAmount what payers paid (as Open Payments shows it), and no state but `completed`.
export function incomingPaymentData(i: PaymentIntent, walletAddressId: string) {
  return {
    id: i.id,
    walletAddressId,
    createdAt: i.createdAt,
    expiresAt: i.expiresAt,
    receivedAmount: amount(i.paidAmount),
    completed: i.state === 'completed',
    ...ifSet('incomingAmount', i.incomingAmount && amount(i.incomingAmount)),
    ...ifSet('metadata', i.metadata),
    ...ifSet('approvedAt', i.approvedAt),
    ...ifSet('cancelledAt', i.cancelledAt),
  };
}

type Liquidity = { liquidity: Amount };

// Asset.onDebit's and Peer.onDebit's data: the threshold and the balance (what is left) as strings.
export const assetLiquidityData = (a: Asset & Liquidity) => ({
  id: a.id,
  asset: { id: a.id, code: a.code, scale: a.scale },
  liquidityThreshold: a.liquidityThreshold ?? null,
  balance: a.liquidity.value,
});
export const peerLiquidityData = (p: Peer & Liquidity, assetId: string) => ({
  id: p.id,
  asset: { id: assetId, code: p.assetCode, scale: p.assetScale },
  liquidityThreshold: p.liquidityThreshold,
  balance: p.liquidity.value,
});

// An event of ours as Rafiki's FSP receives it.
export function rafikiBody(e: { id: string; type: string; data: unknown }, refs: RafikiRefs): RafikiBody {
  const type = (rafikiEventTypes as Record<string, string>)[e.type];
  if (!type) return { id: e.id, type: e.type, data: e.data };
  const walletAddressId = () => required(refs.walletAddressId, 'the wallet address id');
  let data: unknown = e.data; // wallet_address.not_found: {walletAddressUrl}, as Rafiki's
  if (e.type.startsWith('payment.')) data = outgoingPaymentData(e.data as Payment, walletAddressId());
  else if (e.type.startsWith('payment_intent.')) data = incomingPaymentData(e.data as PaymentIntent, walletAddressId());
  else if (e.type === 'asset.liquidity_low') data = assetLiquidityData(e.data as Asset & Liquidity);
  else if (e.type === 'peer.liquidity_low') data = peerLiquidityData(e.data as Peer & Liquidity, required(refs.assetId, "the peer's asset id"));
  return { id: e.id, type, data };
}

// Rafiki-Signature: `t=<ms>, v1=<hex HMAC-SHA256(secret, "<t>.<RFC 8785 JSON of the body>")>`, the
// secret's text as the key (as Rafiki's SIGNATURE_SECRET).
export function rafikiSignature(secret: string, body: RafikiBody, atMs: number): string {
  const digest = createHmac('sha256', secret)
    .update(`${atMs}.${canonicalJson({ id: body.id, type: body.type, data: body.data })}`)
    .digest('hex');
  return `t=${atMs}, v1=${digest}`;
}
