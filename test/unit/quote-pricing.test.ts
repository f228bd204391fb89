import { describe, expect, it } from 'vitest';
import { ilpAmounts, localAmounts, sendableWithin } from '../../lib/quotes/pricing';

// The two pricings of a quote (lib/quotes/pricing.ts), with the amounts Rafiki's own integration
// suite expects of Rafiki: USD and EUR at scale 2, 0.91 EUR per USD, SLIPPAGE 0.01.
const f = (num: bigint, den: bigint) => ({ num, den });
// pay's minimum rate as Rafiki gets it: prices {USD: 1, EUR: 1/0.91}, so 1/(1/0.91) × 0.99, which
// in floating point is 0.9009000000000001, taken as a decimal fraction.
const minEur = f(9009000000000001n, 10n ** 16n);
const lowEur = f(91n, 100n); // what the route pays: 0.91, the receiving node rounding down per packet
const same = { low: f(1n, 1n), min: f(99n, 100n) };

describe('quote pricing', () => {
  it("Rafiki's, over Interledger: the debit for a fixed receive at the rate less slippage, floor(receive ÷ min) + 1", () => {
    expect(ilpAmounts('rafiki', { receive: 500n }, { low: lowEur, min: minEur })).toEqual({ debit: 556n, receive: 500n });
    expect(ilpAmounts('rafiki', { receive: 500n }, { low: lowEur, min: f(9009n, 10000n) })).toEqual({ debit: 556n, receive: 500n });
    expect(ilpAmounts('rafiki', { receive: 100n }, same)).toEqual({ debit: 102n, receive: 100n }); // floor(101.01) + 1
    expect(ilpAmounts('rafiki', { receive: 99n }, same)).toEqual({ debit: 101n, receive: 99n }); // exact: 100 + 1
  });

  it("Rafiki's, over Interledger: the receive amount for a fixed send, ceil((debit − 1) × min)", () => {
    expect(ilpAmounts('rafiki', { debit: 50n }, same)).toEqual({ debit: 50n, receive: 49n }); // ceil(48.51)
    expect(ilpAmounts('rafiki', { debit: 100n }, same)).toEqual({ debit: 100n, receive: 99n }); // ceil(98.01)
    expect(ilpAmounts('rafiki', { debit: 1n }, same)).toEqual({ debit: 1n, receive: 0n }); // too small: refused by the caller
    expect(ilpAmounts('rafiki', { debit: 556n }, { low: lowEur, min: minEur })).toEqual({ debit: 556n, receive: 500n }); // ceil(499.9995...)
  });

  it('ours, over Interledger: at the rate the probe found, the debit rounded up and the receive amount down', () => {
    expect(ilpAmounts('ours', { receive: 500n }, { low: lowEur, min: minEur })).toEqual({ debit: 550n, receive: 500n }); // ceil(549.45)
    expect(ilpAmounts('ours', { receive: 100n }, same)).toEqual({ debit: 100n, receive: 100n });
    expect(ilpAmounts('ours', { debit: 50n }, same)).toEqual({ debit: 50n, receive: 50n });
    expect(ilpAmounts('ours', { debit: 550n }, { low: lowEur, min: minEur })).toEqual({ debit: 550n, receive: 500n }); // floor(500.5)
  });

  it('to a receiver of this node, both pricings alike: no slippage, ceil(receive ÷ rate) and floor(debit × rate)', () => {
    expect(localAmounts({ receive: 500n }, 0.91, { from: 2, to: 2 })).toEqual({ debit: 550n, receive: 500n });
    expect(localAmounts({ debit: 500n }, 1, { from: 2, to: 2 })).toEqual({ debit: 500n, receive: 500n });
    expect(localAmounts({ debit: 550n }, 0.91, { from: 2, to: 2 })).toEqual({ debit: 550n, receive: 500n });
    expect(localAmounts({ receive: 500n }, 0.91, { from: 2, to: 0 })).toEqual({ debit: 54946n, receive: 500n }); // 500 whole units
  });

  it("takes a fixed debit's sending fee: ours, the largest amount whose fee fits beside it; Rafiki's, the fee on the whole debit", () => {
    const fee = { fixed: '10', basisPoints: 500 };
    expect(sendableWithin('ours', fee, 115n)).toBe(100n); // 100 + 10 + 5
    expect(sendableWithin('rafiki', fee, 115n)).toBe(99n); // 115 − (10 + ceil(5.75))
    expect(sendableWithin('rafiki', undefined, 50n)).toBe(50n);
    expect(sendableWithin('rafiki', { fixed: '60', basisPoints: 0 }, 50n)).toBe(-10n); // refused by the caller
  });
});
