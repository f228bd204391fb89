import { describe, expect, it } from 'vitest';
import { chargeKey, fitsBeside, type PaymentCharge } from '../../lib/open-payments/limits';

// What one outgoing payment charges against its grant's limits (lib/open-payments/limits.ts).
const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const eur = (value: string) => ({ value, assetCode: 'EUR', assetScale: 2 });
const payment: PaymentCharge = { receiver: 'https://b.example/incoming-payments/1', debit: usd('1000'), receive: eur('920') };
const NOW = new Date('2026-11-24T12:00:00Z');

describe("a grant's limits", () => {
  it('count a grant without limits, or without an interval, in its total', () => {
    expect(chargeKey(undefined, payment, NOW)).toEqual({ key: 'TOTAL' });
    expect(chargeKey({ debitAmount: usd('5000') }, payment, NOW)).toEqual({ key: 'TOTAL' });
  });

  it('count a grant with an interval in the period that holds the payment', () => {
    expect(chargeKey({ debitAmount: usd('5000'), interval: 'R/2026-01-01T00:00:00Z/P1M' }, payment, NOW)).toEqual({
      key: '2026-11-01T00:00:00.000Z',
      intervalEnd: new Date('2026-12-01T00:00:00Z'),
    });
    expect(chargeKey({ debitAmount: usd('5000'), interval: 'R2/2026-01-01T00:00:00Z/P1M' }, payment, NOW)).toEqual({ refused: 'no_interval' });
  });

  it('tie a grant to its receiver, compared without case or a trailing slash', () => {
    expect(chargeKey({ receiver: 'HTTPS://B.example/incoming-payments/1/' }, payment, NOW)).toEqual({ key: 'TOTAL' });
    expect(chargeKey({ receiver: 'https://b.example/incoming-payments/2' }, payment, NOW)).toEqual({ refused: 'receiver' });
  });

  it("refuse amounts in another asset than the payment's, and a payment more than a limit on its own", () => {
    expect(chargeKey({ debitAmount: eur('5000') }, payment, NOW)).toEqual({ refused: 'debit_asset' });
    expect(chargeKey({ receiveAmount: usd('5000') }, payment, NOW)).toEqual({ refused: 'receive_asset' });
    expect(chargeKey({ debitAmount: { ...usd('5000'), assetScale: 3 } }, payment, NOW)).toEqual({ refused: 'debit_asset' });
    expect(chargeKey({ debitAmount: usd('999') }, payment, NOW)).toEqual({ refused: 'exceeds' });
    expect(chargeKey({ receiveAmount: eur('919') }, payment, NOW)).toEqual({ refused: 'exceeds' });
    expect(chargeKey({ debitAmount: usd('1000') }, payment, NOW)).toEqual({ key: 'TOTAL' }); // exactly the limit
  });

  it('let a payment in beside what was spent only while the sum stays within each limit', () => {
    const limits = { debitAmount: usd('5000') };
    expect(fitsBeside(limits, { debit: 4000n, receive: 0n }, payment)).toBe(true); // 4000 + 1000 = 5000
    expect(fitsBeside(limits, { debit: 4001n, receive: 0n }, payment)).toBe(false);
    expect(fitsBeside({ receiveAmount: eur('1000') }, { debit: 0n, receive: 81n }, payment)).toBe(false);
    expect(fitsBeside(undefined, { debit: 10n ** 30n, receive: 10n ** 30n }, payment)).toBe(true);
    // Amounts past 2^53 add exactly.
    expect(fitsBeside({ debitAmount: usd('18446744073709551615') }, { debit: 18446744073709550615n, receive: 0n }, payment)).toBe(true);
    expect(fitsBeside({ debitAmount: usd('18446744073709551615') }, { debit: 18446744073709550616n, receive: 0n }, payment)).toBe(false);
  });
});
