import { validation } from './errors';

// DynamoDB's numbers: decimal, up to 38 significant digits, magnitude 1E-130 to 1E+126, kept
// and answered in a normal form ("1.50" is 1.5, "1e2" is 100). Exact, as bigints with a scale.

interface Decimal {
  digits: bigint; // signed
  scale: number; // value = digits / 10^scale
}

function parse(text: string): Decimal {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text.trim());
  if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw validation(`The parameter cannot be converted to a numeric value: ${text}`);
  const fraction = m[3] ?? '';
  const scale = fraction.length - Number(m[4] ?? 0);
  const digits = BigInt(`${m[1] === '-' ? '-' : ''}${m[2] || '0'}${fraction}`);
  return scale < 0 ? { digits: digits * 10n ** BigInt(-scale), scale: 0 } : { digits, scale };
}

function format({ digits, scale }: Decimal): string {
  if (digits === 0n) return '0';
  while (scale > 0 && digits % 10n === 0n) {
    digits /= 10n;
    scale--;
  }
  const negative = digits < 0n;
  const abs = (negative ? -digits : digits).toString().padStart(scale + 1, '0');
  const text = scale ? `${abs.slice(0, abs.length - scale)}.${abs.slice(abs.length - scale)}` : abs;
  return negative ? `-${text}` : text;
}

const aligned = (a: Decimal, b: Decimal): [bigint, bigint, number] => {
  const scale = Math.max(a.scale, b.scale);
  return [a.digits * 10n ** BigInt(scale - a.scale), b.digits * 10n ** BigInt(scale - b.scale), scale];
};

function checked(d: Decimal): Decimal {
  const text = format(d).replace('-', '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  if (text.length > 38) throw validation('Attempting to store more than 38 significant digits in a Number');
  const magnitude = (d.digits < 0n ? -d.digits : d.digits).toString().length - d.scale;
  if (d.digits !== 0n && magnitude > 126) throw validation('Number overflow. Attempting to store a number with magnitude larger than supported range');
  return d;
}

export const normalNumber = (text: string): string => format(checked(parse(text)));

export function compareNumbers(a: string, b: string): number {
  const [x, y] = aligned(parse(a), parse(b));
  return x < y ? -1 : x > y ? 1 : 0;
}

export function addNumbers(a: string, b: string): string {
  const [x, y, scale] = aligned(parse(a), parse(b));
  return format(checked({ digits: x + y, scale }));
}
