import { feeTotal } from '../assets/rules';
import type { IntentRecord, IntentState } from './schemas';

// The rules of crediting an intent, pure (lib/payment-intents/index.ts creditIntent applies them).

// An intent takes payments while pending or processing and before its expiry.
export const isOpen = (r: Pick<IntentRecord, 'state' | 'expiresAt'>, now = Date.now()) =>
  (r.state === 'pending' || r.state === 'processing') && Date.parse(r.expiresAt) > now;

// The states that expire: those of an intent not closed (held for approval, or taking payments).
export const UNCLOSED: IntentState[] = ['pending_approval', 'pending', 'processing'];

// What the intent reads as: past its expiry an unclosed intent is expired, even before the expirer
// has recorded it.
export const stateOf = (r: Pick<IntentRecord, 'state' | 'expiresAt'>, now = Date.now()): IntentState =>
  UNCLOSED.includes(r.state) && Date.parse(r.expiresAt) <= now ? 'expired' : r.state;

// stateOf's inverse, for lists by state: the stored states of an intent that reads as `state`, and
// whether it must be past its expiry (true) or before it (false). A stored `expired` is past it:
// the expirer records only those.
export function storedAs(state: IntentState): { states: IntentState[]; pastExpiry?: boolean } {
  if (state === 'expired') return { states: [...UNCLOSED, 'expired'], pastExpiry: true };
  return UNCLOSED.includes(state) ? { states: [state], pastExpiry: false } : { states: [state] };
}

// How much of `amount` (in the intent's asset) the intent takes, never passing its incomingAmount:
// all of it when it fits; only what is left when the payer could not have come closer (`oneUnitLess`,
// what one unit less of the payer's asset converts to, would have left it short: a conversion's
// rounding, which the node keeps); else undefined, and the payment is refused. Without
// `oneUnitLess` (an amount that is exact, as a local payment's) nothing may pass.
export function creditFor(r: Pick<IntentRecord, 'incomingValue' | 'received'>, amount: bigint, oneUnitLess = amount): bigint | undefined {
  if (r.incomingValue === null) return amount;
  const left = BigInt(r.incomingValue) - BigInt(r.received);
  if (amount <= left) return amount;
  return oneUnitLess < left ? left : undefined;
}

// The receiving fee a credit pays: what the intent owes in all after it, less what it owed before
// (so the fixed part is paid once, by the first credits, whatever their number).
export const feeOfCredit = (r: Pick<IntentRecord, 'received' | 'receivingFee'>, credit: bigint): bigint =>
  feeTotal(r.receivingFee, BigInt(r.received) + credit) - feeTotal(r.receivingFee, BigInt(r.received));

// The intent after a credit (`fee` of it taken): processing, or completed once what was paid
// reaches its incomingAmount.
export function afterCredit(r: IntentRecord, credit: bigint, fee: bigint, now: string): IntentRecord {
  const received = BigInt(r.received) + credit;
  const completes = r.incomingValue !== null && received >= BigInt(r.incomingValue);
  return {
    ...r,
    received: received.toString(),
    ...(fee > 0n && { fee: (BigInt(r.fee ?? '0') + fee).toString() }),
    state: completes ? 'completed' : 'processing',
    ...(completes && { completedAt: now }),
  };
}

// Closed short: an intent that asked for an amount, received part of it, and closed (expired, or
// completed by the FSP) before the rest came.
export const isShort = (r: Pick<IntentRecord, 'incomingValue' | 'received'>) =>
  r.incomingValue !== null && BigInt(r.received) > 0n && BigInt(r.received) < BigInt(r.incomingValue);

// A returnable or returned credit: the local payment that made it, and its value at the intent's scale.
export const creditEntry = (paymentId: string, value: bigint) => `${paymentId}:${value}`;
export const parseCredit = (entry: string) => {
  const at = entry.lastIndexOf(':');
  return { paymentId: entry.slice(0, at), value: BigInt(entry.slice(at + 1)) };
};
