import * as z from 'zod';
import { invalidField } from './errors';
import { LEDGER_SCALE } from './ledger-scale';
import { amountValue, assetCode } from './values';

// Money: `{value, assetCode, assetScale}` with an integer string value at the asset's scale
// (Open Payments style). The ledger holds every balance at scale 20 as a bigint; conversions
// between the two are exact. Rates are decimals, applied as exact fractions.
const MAX_LEDGER_DIGITS = 38; // what a DynamoDB number holds

export const amount = z.strictObject({ value: amountValue, assetCode, assetScale: z.int().min(0).max(255) });
export type Amount = z.infer<typeof amount>;

export const amountOf = (value: bigint, asset: { code: string; scale: number }): Amount => ({
  value: value.toString(),
  assetCode: asset.code,
  assetScale: asset.scale,
});

const pow10 = (n: number) => 10n ** BigInt(n);

export function toLedger(value: bigint, scale: number, field = 'amount'): bigint {
  let units: bigint;
  if (scale <= LEDGER_SCALE) units = value * pow10(LEDGER_SCALE - scale);
  else {
    const step = pow10(scale - LEDGER_SCALE);
    if (value % step !== 0n) throw invalidField(field, `has more precision than the ledger's ${LEDGER_SCALE} decimal places`);
    units = value / step;
  }
  if (units.toString().length > MAX_LEDGER_DIGITS) throw invalidField(field, 'is too large');
  return units;
}

// Ledger units back to the asset's scale, rounded down (a balance shown is never more than held).
export function fromLedger(units: bigint, scale: number): bigint {
  return scale <= LEDGER_SCALE ? units / pow10(LEDGER_SCALE - scale) : units * pow10(scale - LEDGER_SCALE);
}

// A JS number rate as the exact fraction its shortest decimal form denotes: 0.92 -> 92/100.
export function rateFraction(rate: number): { num: bigint; den: bigint } {
  if (!(rate > 0) || !Number.isFinite(rate)) throw new Error(`Not a usable rate: ${rate}`);
  const [mantissa, exp = '0'] = rate.toString().toLowerCase().split('e');
  const [whole, frac = ''] = mantissa.split('.');
  const shift = Number(exp) - frac.length;
  const digits = BigInt(whole + frac);
  return shift >= 0 ? { num: digits * pow10(shift), den: 1n } : { num: digits, den: pow10(-shift) };
}

const divFloor = (a: bigint, b: bigint) => a / b;
export const divCeil = (a: bigint, b: bigint) => (a + b - 1n) / b;

// Conversions between two assets' scales through a rate, rounded in the service's favour: the
// receiver gets the amount rounded down; a sender's debit for a fixed receive is rounded up.
export function receiveFor(debit: bigint, rate: number, fromScale: number, toScale: number): bigint {
  const { num, den } = rateFraction(rate);
  return divFloor(debit * num * pow10(toScale), den * pow10(fromScale));
}

export function debitFor(receive: bigint, rate: number, fromScale: number, toScale: number): bigint {
  const { num, den } = rateFraction(rate);
  return divCeil(receive * den * pow10(fromScale), num * pow10(toScale));
}
