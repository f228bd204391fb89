import type { IntentRecord } from './schemas';

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
