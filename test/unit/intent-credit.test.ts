import { describe, expect, it } from 'vitest';
import { creditFor } from '../../lib/payment-intents/credit';

// An intent never takes more than its incomingAmount asks; only a conversion's rounding on the
// smallest packet that reaches it is let through, and then the intent takes just what is left.
const intent = (incomingValue: string | null, received: string) => ({ incomingValue, received });

describe('creditFor', () => {
  it('takes all of an amount that fits, and any amount when nothing is asked', () => {
    expect(creditFor(intent('300', '100'), 200n)).toBe(200n);
    expect(creditFor(intent('300', '0'), 1n, 0n)).toBe(1n);
    expect(creditFor(intent(null, '10'), 10n ** 30n)).toBe(10n ** 30n);
  });

  it('refuses an exact amount past what is left (a local payment, a packet in the same asset)', () => {
    expect(creditFor(intent('300', '0'), 5000n)).toBeUndefined();
    expect(creditFor(intent('300', '103'), 250n, 249n)).toBeUndefined();
    expect(creditFor(intent('300', '103'), 198n, 197n)).toBeUndefined();
    expect(creditFor(intent('300', '300'), 1n, 0n)).toBeUndefined();
  });

  it('takes what is left from the smallest converted amount that reaches it, and nothing larger', () => {
    expect(creditFor(intent('101', '0'), 102n, 100n)).toBe(101n); // one unit less would leave it short
    expect(creditFor(intent('101', '0'), 103n, 102n)).toBeUndefined(); // one unit less would do
    expect(creditFor(intent('101', '0'), 103n, 101n)).toBeUndefined();
  });
});
