import { createHmac, timingSafeEqual } from 'node:crypto';

// Admin API request signing: `signature: t=<unix seconds, optionally with a fraction>, v1=<hex
// HMAC-SHA256>` over "<t>.<METHOD>.<path with query>.<Idempotency-Key, empty if none>.<raw body>",
// with `t` exactly as sent. Signing the key means a request cannot lose it on the way (and then
// act again on the FSP's retry); a fractional `t` makes two equal requests in one second two
// signatures. Pure functions; the replay store is separate.
export const SIGNATURE_TOLERANCE_SECS = 300;

export interface SignedRequest {
  method: string;
  pathWithQuery: string;
  idempotencyKey?: string;
  body: Buffer | string;
}

export function computeSignature(secret: string, t: string, req: SignedRequest): string {
  return createHmac('sha256', secret)
    .update(`${t}.${req.method.toUpperCase()}.${req.pathWithQuery}.${req.idempotencyKey ?? ''}.`)
    .update(req.body)
    .digest('hex');
}

// `t` defaults to now, in seconds with milliseconds.
export function signatureHeader(secret: string, req: SignedRequest, t: number | string = (Date.now() / 1000).toFixed(3)): string {
  return `t=${t}, v1=${computeSignature(secret, String(t), req)}`;
}

export type Verification = { ok: true; t: number; v1: string } | { ok: false; reason: string };

// `req.pathWithQuery` may list the ways the client may have written it (a REST API's event holds
// the query decoded: ./query.ts); any one matching is enough.
export function verifySignature(
  header: string | undefined,
  secret: string,
  req: Omit<SignedRequest, 'pathWithQuery'> & { pathWithQuery: string | string[] },
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
  if (!tText || !/^\d{1,12}(\.\d{1,9})?$/.test(tText) || candidates.length === 0) {
    return { ok: false, reason: 'The signature header must be "t=<unix seconds, optionally with a fraction>, v1=<hex>"' };
  }
  const t = Number(tText);
  if (Math.abs(nowSecs - t) > SIGNATURE_TOLERANCE_SECS) {
    return { ok: false, reason: `The signature timestamp is more than ${SIGNATURE_TOLERANCE_SECS} s from now` };
  }
  const paths = typeof req.pathWithQuery === 'string' ? [req.pathWithQuery] : req.pathWithQuery;
  for (const pathWithQuery of paths) {
    const expected = Buffer.from(computeSignature(secret, tText, { ...req, pathWithQuery }), 'hex');
    for (const v1 of candidates) {
      if (/^[0-9a-f]{64}$/i.test(v1) && timingSafeEqual(Buffer.from(v1, 'hex'), expected)) return { ok: true, t, v1: v1.toLowerCase() };
    }
  }
  return { ok: false, reason: 'The signature does not match the request' };
}
