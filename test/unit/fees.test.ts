import { describe, expect, it } from 'vitest';
import { amountWithin, feeOn, feeTotal } from '../../lib/assets/rules';
import { feeOfCredit } from '../../lib/payment-intents/credit';

// The fee rules (lib/assets/rules.ts): fixed plus basis points, the fraction rounded up.
const fee = (fixed: string, basisPoints: number) => ({ fixed, basisPoints });

describe('fees', () => {
  it('add the fixed part and the basis points of the amount, rounding a fraction of a minor unit up', () => {
    expect(feeOn(fee('10', 500), 100n)).toBe(15n); // 0.10 + 5% of 1.00: 1.15 in all
    expect(feeOn(fee('10', 50), 100n)).toBe(11n); // 0.10 + 0.005, rounded up
    expect(feeOn(fee('0', 1), 1n)).toBe(1n); // any fraction is a unit
    expect(feeOn(fee('0', 100), 200n)).toBe(2n); // exact: no rounding
    expect(feeOn(fee('7', 0), 10n ** 30n)).toBe(7n);
    expect(feeOn(fee('0', 10000), 123n)).toBe(123n);
    expect(feeOn(undefined, 100n)).toBe(0n);
  });

  it('leave, out of a given total, the largest amount whose fee fits beside it', () => {
    expect(amountWithin(fee('10', 500), 115n)).toBe(100n);
    expect(amountWithin(fee('10', 50), 111n)).toBe(100n);
    expect(amountWithin(fee('10', 50), 110n)).toBe(99n); // 99 + 10 + ceil(0.495) = 110
    expect(amountWithin(fee('10', 0), 10n)).toBe(0n);
    expect(amountWithin(fee('10', 0), 3n)).toBe(0n);
    expect(amountWithin(undefined, 42n)).toBe(42n);
    // The largest indeed: one more would not fit.
    for (const [s, total] of [
      [fee('10', 50), 111n],
      [fee('3', 333), 1000n],
      [fee('0', 10000), 9n],
      [fee('1', 7), 123457n],
    ] as const) {
      const a = amountWithin(s, total);
      expect(a + feeOn(s, a)).toBeLessThanOrEqual(total);
      expect(a + 1n + feeOn(s, a + 1n)).toBeGreaterThan(total);
    }
  });

  it('take a receiving fee once per intent: the fixed part once, the basis points on what was paid in all', () => {
    const s = fee('10', 50);
    expect(feeTotal(s, 0n)).toBe(0n);
    expect(feeTotal(s, 4n)).toBe(4n); // never more than was paid
    expect(feeTotal(s, 1000n)).toBe(15n);
    // Paid in ten packets of 100 or in one of 1000: the same fee.
    let received = 0n;
    let taken = 0n;
    for (let k = 0; k < 10; k++) {
      const credit = feeOfCredit({ received: received.toString(), receivingFee: s }, 100n);
      expect(credit).toBeGreaterThanOrEqual(0n);
      expect(credit).toBeLessThanOrEqual(100n);
      taken += credit;
      received += 100n;
    }
    expect(taken).toBe(feeOfCredit({ received: '0', receivingFee: s }, 1000n));
    expect(feeOfCredit({ received: '0' }, 1000n)).toBe(0n); // an intent made with no receiving fee
  });
});
