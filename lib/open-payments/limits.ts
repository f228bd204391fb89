import type { Amount } from '../shared/amounts';
import { sameAddress } from '../shared/wallet-address-url';

// An outgoing-payment grant's limits (its access item's `limits`), and whether one payment fits
// them. `debitAmount` and `receiveAmount` are totals over the grant's payments, or over each
// interval with `interval` (which period a payment falls in: ./interval.ts); `receiver` ties the
// grant to one incoming payment. What is already spent is read and compared where the payment is
// created, in its transaction: `refusalOf` is the part that needs no read.
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

export type Refusal = 'receiver' | 'debit_asset' | 'receive_asset' | 'no_interval' | 'exceeds';

export const REFUSALS: Record<Refusal, string> = {
  receiver: "The grant is for another incoming payment than this payment's receiver",
  debit_asset: "The grant's debitAmount is in another asset than the payment's debit",
  receive_asset: "The grant's receiveAmount is in another asset than the payment's receive amount",
  no_interval: "The grant's interval has no period now (before its first or after its last)",
  exceeds: 'This payment alone is more than the grant allows',
};

const sameAsset = (a: Amount, b: Amount) => a.assetCode === b.assetCode && a.assetScale === b.assetScale;

// Why the grant cannot cover `p` whatever was spent before, if it cannot.
export function refusalOf(limits: GrantLimits | undefined, p: PaymentCharge): Refusal | undefined {
  if (!limits) return undefined;
  if (limits.receiver && !sameAddress(limits.receiver, p.receiver)) return 'receiver';
  if (limits.debitAmount && !sameAsset(limits.debitAmount, p.debit)) return 'debit_asset';
  if (limits.receiveAmount && !sameAsset(limits.receiveAmount, p.receive)) return 'receive_asset';
  if (limits.debitAmount && BigInt(p.debit.value) > BigInt(limits.debitAmount.value)) return 'exceeds';
  if (limits.receiveAmount && BigInt(p.receive.value) > BigInt(limits.receiveAmount.value)) return 'exceeds';
  return undefined;
}

// Whether `p` fits beside what was already spent in its period.
export function fitsBeside(limits: GrantLimits | undefined, spent: { debit: bigint; receive: bigint }, p: PaymentCharge): boolean {
  if (limits?.debitAmount && spent.debit + BigInt(p.debit.value) > BigInt(limits.debitAmount.value)) return false;
  if (limits?.receiveAmount && spent.receive + BigInt(p.receive.value) > BigInt(limits.receiveAmount.value)) return false;
  return true;
}
