import { describe, expect, it } from 'vitest';
import { ledgerUnits, money, toUnits, units, withAmountsWritten } from '../../console/amounts';
import { minorUnits } from '../../console/forms';
import { LEDGER_SCALE } from '../../lib/shared/ledger-scale';

// Amounts as the console, the consent page and the CLI write them for a person.
describe('amounts for a person', () => {
  it('group thousands, at any scale and sign', () => {
    expect(units('1005000', 2)).toBe('10,050.00');
    expect(units('100000000', 2)).toBe('1,000,000.00');
    expect(units('99999', 2)).toBe('999.99');
    expect(units('5', 2)).toBe('0.05');
    expect(units('-1234567', 3)).toBe('-1,234.567');
    expect(units('1234', 0)).toBe('1,234');
    expect(money({ value: '1005000', assetCode: 'USD', assetScale: 2 })).toBe('10,050.00 USD');
  });

  it('read what a person types as the integer string the API takes, thousands grouped or not', () => {
    expect(toUnits('92.5', 2)).toBe('9250');
    expect(toUnits('10,050.00', 2)).toBe('1005000');
    expect(toUnits('1.234', 2)).toBeUndefined(); // finer than the scale
    expect(toUnits('0', 2)).toBeUndefined(); // not a positive amount
    // A form's amount: zero is one; what is no amount goes to the API as typed, which says why at its field.
    expect(minorUnits('0.00', 2)).toBe('0');
    expect(minorUnits(' 1,000 ', 2)).toBe('100000');
    expect(minorUnits('', 2)).toBeUndefined();
    expect(minorUnits('ten', 2)).toBe('ten');
  });

  it("write a ledger sum at its asset's scale, with finer digits only where it has them", () => {
    expect(ledgerUnits('0', LEDGER_SCALE, 2)).toBe('0.00');
    expect(ledgerUnits('-123000000000000000000000', LEDGER_SCALE, 2)).toBe('-1,230.00');
    expect(ledgerUnits('1', LEDGER_SCALE, 2)).toBe('0.00000000000000000001');
    expect(ledgerUnits('150000000000000000000', LEDGER_SCALE, 0)).toBe('1.5');
    expect(ledgerUnits('100000000000000000000', LEDGER_SCALE, 0)).toBe('1');
  });

  it("write an answer's amounts for a person (the CLI's output), and leave the rest as it was", () => {
    const answer = {
      id: 'p1',
      sentAmount: { value: '1005000', assetCode: 'USD', assetScale: 2 },
      items: [{ liquidity: { value: '995000', assetCode: 'USD', assetScale: 2 }, scale: 2, note: null }],
      metadata: { value: '3' },
    };
    expect(withAmountsWritten(answer)).toEqual({
      id: 'p1',
      sentAmount: '10,050.00 USD',
      items: [{ liquidity: '9,950.00 USD', scale: 2, note: null }],
      metadata: { value: '3' },
    });
  });
});
