import { createHmac, timingSafeEqual } from 'node:crypto';

// Admin API request signing: `signature: t=<unix seconds>, v1=<hex HMAC-SHA256>` over
// "<t>.<METHOD>.<path with query>.<raw body>". Pure functions; the replay store is separate.
export const SIGNATURE_TOLERANCE_SECS = 300;

export interface SignedRequest {
  method: string;
  pathWithQuery: string;
  body: Buffer | string;
}

export function computeSignature(secret: string, t: number, req: SignedRequest): string {
  return createHmac('sha256', secret)
    .update(`${t}.${req.method.toUpperCase()}.${req.pathWithQuery}.`)
    .update(req.body)
    .digest('hex');
}

export function signatureHeader(secret: string, req: SignedRequest, t = Math.floor(Date.now() / 1000)): string {
  return `t=${t}, v1=${computeSignature(secret, t, req)}`;
}

export type Verification = { ok: true; t: number; v1: string } | { ok: false; reason: string };

export function verifySignature(
  header: string | undefined,
  secret: string,
  req: SignedRequest,
  nowSecs: number,
): Verification {
  if (!header) return { ok: false, reason: 'The signature header is missing' };
  const parts = new Map<string, string[]>();
  for (const piece of header.split(',')) {
    const eq = piece.indexOf('=');
    if (eq < 0) return { ok: false, reason: 'The signature header is malformed' };
    const key = piece.slice(0, eq).trim();
    parts.set(key, [...(parts.get(key) ?? []), piece.slice(eq + 1).trim()]);
  }
  const tText = parts.get('t')?.[0];
  const candidates = parts.get('v1') ?? [];
  if (!tText || !/^\d{1,12}$/.test(tText) || candidates.length === 0) {
    return { ok: false, reason: 'The signature header must be "t=<unix seconds>, v1=<hex>"' };
  }
  const t = Number(tText);
  if (Math.abs(nowSecs - t) > SIGNATURE_TOLERANCE_SECS) {
    return { ok: false, reason: `The signature timestamp is more than ${SIGNATURE_TOLERANCE_SECS} s from now` };
  }
  const expected = Buffer.from(computeSignature(secret, t, req), 'hex');
  for (const v1 of candidates) {
    const given = Buffer.from(v1, 'hex');
    if (/^[0-9a-f]{64}$/i.test(v1) && timingSafeEqual(given, expected)) return { ok: true, t, v1: v1.toLowerCase() };
  }
  return { ok: false, reason: 'The signature does not match the request' };
}
