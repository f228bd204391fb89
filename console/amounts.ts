import type { Amount } from './api';

// Amounts as a person reads them, for the console, the local consent page and the CLI (no
// framework here).

// "1005000" at scale 2 is "10,050.00": the amount as a person reads it, thousands grouped.
export function units(value: string, scale: number): string {
  const negative = value.startsWith('-');
  const digits = (negative ? value.slice(1) : value).padStart(scale + 1, '0');
  const whole = digits.slice(0, digits.length - scale).replace(/\B(?=(\d{3})+$)/g, ',');
  return `${negative ? '-' : ''}${whole}${scale ? `.${digits.slice(-scale)}` : ''}`;
}
export const money = (a: Amount | null | undefined) => (a ? `${units(a.value, a.assetScale)} ${a.assetCode}` : '–');

// "92.5" (or "1,092.5") at scale 2 is "9250" ("109250"), the integer string the Admin API takes;
// undefined when it is not a positive amount that the scale can hold.
export function toUnits(text: string, scale: number): string | undefined {
  const m = /^(\d+)(?:\.(\d*))?$/.exec(text.trim().replace(/,(?=\d{3}(?:\D|$))/g, ''));
  if (!m || (m[2] ?? '').length > scale) return undefined;
  const value = (m[1] + (m[2] ?? '').padEnd(scale, '0')).replace(/^0+/, '');
  return value || undefined;
}

// A ledger sum (at the ledger's scale, `ledgerScale`) written at its asset's scale, with the finer
// digits only where there are some: "0" is "0.00", a dust of 10^-20 keeps all its digits.
export function ledgerUnits(value: string, ledgerScale: number, assetScale: number): string {
  const written = units(value, ledgerScale);
  const point = written.indexOf('.');
  if (point < 0) return written;
  const keep = Math.max(assetScale, written.length - point - 1 - (/0*$/.exec(written)?.[0].length ?? 0));
  return keep ? written.slice(0, point + 1 + keep) : written.slice(0, point);
}

const isAmount = (v: unknown): v is Amount =>
  typeof v === 'object' && v !== null && Object.keys(v).length === 3 && ['value', 'assetCode', 'assetScale'].every((k) => k in v);

// A JSON answer with each of its amounts written for a person ("10,050.00 USD"), the rest as it was.
export function withAmountsWritten(body: unknown): unknown {
  if (isAmount(body)) return money(body);
  if (Array.isArray(body)) return body.map(withAmountsWritten);
  if (typeof body === 'object' && body !== null) return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, withAmountsWritten(v)]));
  return body;
}
