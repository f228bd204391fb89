import { describe, expect, it } from 'vitest';
import { grantPeriodAt } from '../../lib/open-payments/interval';
import { fitsBeside, type PaymentCharge, refusalOf } from '../../lib/open-payments/limits';

// Whether one outgoing payment fits its grant's limits (lib/open-payments/limits.ts), and the
// period it is charged in (lib/open-payments/interval.ts).
const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const eur = (value: string) => ({ value, assetCode: 'EUR', assetScale: 2 });
const payment: PaymentCharge = { receiver: 'https://b.example/incoming-payments/1', debit: usd('1000'), receive: eur('920') };
const NOW = new Date('2026-11-24T12:00:00Z');

describe("a grant's limits", () => {
  it('count a grant without an interval in its total', () => {
    expect(grantPeriodAt(undefined, NOW)).toEqual({ key: 'TOTAL' });
    expect(refusalOf(undefined, payment)).toBeUndefined();
    expect(refusalOf({ debitAmount: usd('5000') }, payment)).toBeUndefined();
  });

  it('count a grant with an interval in the period that holds the payment, and none outside its periods', () => {
    expect(grantPeriodAt('R/2026-01-01T00:00:00Z/P1M', NOW)).toEqual({ key: '2026-11-01T00:00:00.000Z', end: new Date('2026-12-01T00:00:00Z') });
    expect(grantPeriodAt('R2/2026-01-01T00:00:00Z/P1M', NOW)).toBeUndefined();
  });

  it('tie a grant to its receiver, compared without case or a trailing slash', () => {
    expect(refusalOf({ receiver: 'HTTPS://B.example/incoming-payments/1/' }, payment)).toBeUndefined();
    expect(refusalOf({ receiver: 'https://b.example/incoming-payments/2' }, payment)).toBe('receiver');
  });

  it("refuse amounts in another asset than the payment's, and a payment more than a limit on its own", () => {
    expect(refusalOf({ debitAmount: eur('5000') }, payment)).toBe('debit_asset');
    expect(refusalOf({ receiveAmount: usd('5000') }, payment)).toBe('receive_asset');
    expect(refusalOf({ debitAmount: { ...usd('5000'), assetScale: 3 } }, payment)).toBe('debit_asset');
    expect(refusalOf({ debitAmount: usd('999') }, payment)).toBe('exceeds');
    expect(refusalOf({ receiveAmount: eur('919') }, payment)).toBe('exceeds');
    expect(refusalOf({ debitAmount: usd('1000') }, payment)).toBeUndefined(); // exactly the limit
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
