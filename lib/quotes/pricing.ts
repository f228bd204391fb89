import { amountWithin, feeOn } from '../assets/rules';
import type { FeeSchedule } from '../assets/schemas';
import { debitFor, divCeil, receiveFor } from '../shared/amounts';
import type { QuotePricing } from '../shared/node';

// How a quote's amounts follow from its target (a debit or a receive amount) and its rate, by the
// node's QUOTE_PRICING: `ours` (the default) or `rafiki`, Rafiki's own, so that an FSP moving from
// Rafiki quotes the amounts it did. The payment methods (lib/payments/methods) find the rate; this
// is the one place that turns it into amounts. Every function here is pure.

// A rate as an exact fraction: receive units (at the receiver's scale) per debit unit (at the sender's).
export interface Fraction {
  num: bigint;
  den: bigint;
}

// Given a debitAmount, what of it is sent, the rest being the sending fee. Ours: the largest amount
// whose fee fits beside it. Rafiki's: the debit less the fee on the whole debit.
export function sendableWithin(pricing: QuotePricing, schedule: FeeSchedule | undefined, debit: bigint): bigint {
  return pricing === 'rafiki' ? debit - feeOn(schedule, debit) : amountWithin(schedule, debit);
}

// To this node's own receivers, both pricings agree (Rafiki's local method takes no slippage):
// a receive amount is floor(debit × rate), a debit ceil(receive ÷ rate).
export function localAmounts(target: { debit?: bigint; receive?: bigint }, rate: number, scales: { from: number; to: number }) {
  return {
    debit: target.debit ?? debitFor(target.receive!, rate, scales.from, scales.to),
    receive: target.receive ?? receiveFor(target.debit!, rate, scales.from, scales.to),
  };
}

// Over Interledger, from @interledger/pay's rate probe: `low`, the rate the route was found to pay,
// and `min`, the least every packet must deliver at (the expected rate less SLIPPAGE, at the assets'
// scales, as pay computes it). Ours prices at the probed rate: a debit ceil(receive ÷ low), a
// receive floor(debit × low). Rafiki's prices at the minimum, as pay quotes (its maxSourceAmount and
// minDeliveryAmount): a debit floor(receive ÷ min) + 1, a receive ceil((debit − 1) × min); its
// payment then sends what delivering the receive amount costs, which may be less than the debit.
export function ilpAmounts(
  pricing: QuotePricing,
  target: { debit?: bigint; receive?: bigint },
  rates: { low: Fraction; min: Fraction },
): { debit: bigint; receive: bigint } {
  if (pricing === 'rafiki') {
    const { num, den } = rates.min;
    if (target.receive !== undefined) return { debit: (target.receive * den) / num + 1n, receive: target.receive };
    const debit = target.debit!;
    return { debit, receive: debit > 0n ? divCeil((debit - 1n) * num, den) : 0n };
  }
  const { num, den } = rates.low;
  if (target.receive !== undefined) return { debit: divCeil(target.receive * den, num), receive: target.receive };
  return { debit: target.debit!, receive: (target.debit! * num) / den };
}
