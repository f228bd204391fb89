import type { Amount } from '../amounts';
import { currentPeriod, parseRepeatingInterval } from './interval';

// An outgoing-payment grant's limits (its access item's `limits`), and what one payment charges
// against them. `debitAmount` and `receiveAmount` are totals over the grant's payments, or over
// each interval with `interval`; `receiver` ties the grant to one incoming payment. What is
// already spent is read and compared where the payment is created, in its transaction: this is
// the part that needs no read.
export interface GrantLimits {
  receiver?: string;
  interval?: string;
  debitAmount?: Amount;
  receiveAmount?: Amount;
}

export interface PaymentCharge {
  receiver: string;
  debit: Amount;
  receive: Amount;
}

// Where the charge is counted: the grant's total, or the interval that holds the payment.
export type ChargeKey = { key: 'TOTAL' } | { key: string; intervalEnd: Date };

export type Refusal = 'receiver' | 'debit_asset' | 'receive_asset' | 'no_interval' | 'exceeds';

export const REFUSALS: Record<Refusal, string> = {
  receiver: "The grant is for another incoming payment than this payment's receiver",
  debit_asset: "The grant's debitAmount is in another asset than the payment's debit",
  receive_asset: "The grant's receiveAmount is in another asset than the payment's receive amount",
  no_interval: "The grant's interval has no period now (before its first or after its last)",
  exceeds: 'This payment alone is more than the grant allows',
};

// Incoming payment URLs compare as wallet addresses do: without case or a trailing slash.
const sameUrl = (a: string, b: string) => a.toLowerCase().replace(/\/+$/, '') === b.toLowerCase().replace(/\/+$/, '');
const sameAsset = (a: Amount, b: Amount) => a.assetCode === b.assetCode && a.assetScale === b.assetScale;

// Where `p` would be counted under `limits` at `at`, or why the grant cannot cover it whatever was
// spent before.
export function chargeKey(limits: GrantLimits | undefined, p: PaymentCharge, at: Date): ChargeKey | { refused: Refusal } {
  if (!limits) return { key: 'TOTAL' };
  if (limits.receiver && !sameUrl(limits.receiver, p.receiver)) return { refused: 'receiver' };
  if (limits.debitAmount && !sameAsset(limits.debitAmount, p.debit)) return { refused: 'debit_asset' };
  if (limits.receiveAmount && !sameAsset(limits.receiveAmount, p.receive)) return { refused: 'receive_asset' };
  if (limits.debitAmount && BigInt(p.debit.value) > BigInt(limits.debitAmount.value)) return { refused: 'exceeds' };
  if (limits.receiveAmount && BigInt(p.receive.value) > BigInt(limits.receiveAmount.value)) return { refused: 'exceeds' };
  if (!limits.interval) return { key: 'TOTAL' };
  const spec = parseRepeatingInterval(limits.interval);
  const period = spec && currentPeriod(spec, at);
  if (!period) return { refused: 'no_interval' };
  return { key: period.start.toISOString(), intervalEnd: period.end };
}

// Whether `p` fits beside what was already spent in its key's period.
export function fitsBeside(limits: GrantLimits | undefined, spent: { debit: bigint; receive: bigint }, p: PaymentCharge): boolean {
  if (limits?.debitAmount && spent.debit + BigInt(p.debit.value) > BigInt(limits.debitAmount.value)) return false;
  if (limits?.receiveAmount && spent.receive + BigInt(p.receive.value) > BigInt(limits.receiveAmount.value)) return false;
  return true;
}
