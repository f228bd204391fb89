import { divCeil } from '../shared/amounts';
import type { FeeSchedule } from './schemas';

// Fees, pure: a fixed amount plus basis points of the amount charged on, in minor units of the asset
// charged in. The basis points' fraction of a minor unit is rounded up, in the FSP's favour (0.10 +
// 50 bps on 1.00 is 0.11: 0.10 + 0.005 rounded up).
const WHOLE = 10_000n; // basis points in the whole

export function feeOn(schedule: FeeSchedule | undefined, amount: bigint): bigint {
  if (!schedule) return 0n;
  return BigInt(schedule.fixed) + divCeil(amount * BigInt(schedule.basisPoints), WHOLE);
}

// The most that can be sent out of `total` with its fee beside it (a quote given its debitAmount):
// the largest amount a with a + fee(a) <= total; what is left of total is the fee. 0 when the
// fixed part takes it all.
export function amountWithin(schedule: FeeSchedule | undefined, total: bigint): bigint {
  if (!schedule) return total;
  const left = total - BigInt(schedule.fixed);
  return left > 0n ? (left * WHOLE) / (WHOLE + BigInt(schedule.basisPoints)) : 0n;
}

// A receiving fee, taken from credits: what an intent that was paid `paid` in all has owed in all.
// The fixed part is owed once per intent, the basis points on the whole, so that the fee does not
// depend on how many packets or payments brought the money; never more than was paid.
export function feeTotal(schedule: FeeSchedule | undefined, paid: bigint): bigint {
  if (paid <= 0n) return 0n;
  const fee = feeOn(schedule, paid);
  return fee < paid ? fee : paid;
}
