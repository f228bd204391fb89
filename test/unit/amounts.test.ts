import { describe, expect, it } from 'vitest';
import { debitFor, fromLedger, rateFraction, receiveFor, toLedger } from '../../lib/shared/amounts';

describe('amounts', () => {
  it('converts to and from the ledger scale of 20 exactly', () => {
    expect(toLedger(12345n, 2)).toBe(12345n * 10n ** 18n);
    expect(fromLedger(toLedger(12345n, 2), 2)).toBe(12345n);
    expect(toLedger(7n, 0)).toBe(7n * 10n ** 20n);
    expect(toLedger(10n ** 18n * 5n, 20)).toBe(10n ** 18n * 5n);
    expect(toLedger(3000n, 23)).toBe(3n);
    expect(() => toLedger(3001n, 23)).toThrow(/precision/);
    expect(() => toLedger(10n ** 30n, 2)).toThrow(/too large/);
    expect(fromLedger(10n ** 18n + 1n, 2)).toBe(1n); // rounded down
  });

  it('reads rates as exact decimal fractions', () => {
    expect(rateFraction(0.92)).toEqual({ num: 92n, den: 100n });
    expect(rateFraction(1)).toEqual({ num: 1n, den: 1n });
    expect(rateFraction(154.3)).toEqual({ num: 1543n, den: 10n });
    expect(rateFraction(1e-7)).toEqual({ num: 1n, den: 10000000n });
    expect(rateFraction(2e21)).toEqual({ num: 2n * 10n ** 21n, den: 1n });
  });

  it('rounds conversions in the service favour', () => {
    // 1.00 USD at 0.92 -> 0.92 EUR exactly
    expect(receiveFor(100n, 0.92, 2, 2)).toBe(92n);
    // 0.01 USD at 0.92 -> 0.0092 EUR, receiver gets 0.00
    expect(receiveFor(1n, 0.92, 2, 2)).toBe(0n);
    // To deliver 0.92 EUR costs exactly 1.00 USD; to deliver 0.93 costs 1.02 (1.0108.. rounded up)
    expect(debitFor(92n, 0.92, 2, 2)).toBe(100n);
    expect(debitFor(93n, 0.92, 2, 2)).toBe(102n);
    // Across scales: 1.00 USD (scale 2) at 154.3 -> 154 JPY (scale 0)
    expect(receiveFor(100n, 154.3, 2, 0)).toBe(154n);
    expect(debitFor(154n, 154.3, 2, 0)).toBe(100n);
    // Round trip never pays out more than was debited
    for (const r of [0.92, 1.087, 17.1, 0.0585, 3.3333]) {
      for (const d of [1n, 7n, 100n, 12345n]) {
        const rcv = receiveFor(d, r, 2, 2);
        expect(debitFor(rcv, r, 2, 2)).toBeLessThanOrEqual(d);
      }
    }
  });
});
