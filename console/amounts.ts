import type { Amount } from './api';

// Amounts as a person reads them, for the console and the local consent page (no framework here).

// "9200" at scale 2 is "92.00": the amount as a person reads it, with its code.
export function units(value: string, scale: number): string {
  if (!scale) return value;
  const negative = value.startsWith('-');
  const digits = (negative ? value.slice(1) : value).padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}
export const money = (a: Amount | null | undefined) => (a ? `${units(a.value, a.assetScale)} ${a.assetCode}` : '–');
