import { createHmac, timingSafeEqual } from 'node:crypto';

// Admin API request signing, version 2: `signature: t=<unix seconds, optionally with a fraction>,
// v2=<hex HMAC-SHA256>` over "<t>\n<METHOD>\n<path with query>\n<Idempotency-Key, empty if
// none>\n<raw body>", with `t` exactly as sent. A URL and a header value cannot hold a newline and
// the body comes last, so the string has one reading: no character can move from one field to
// the next (v1 joined them with ".", which can). Signing the key means a request cannot lose it on
// the way (and then act again on the FSP's retry); a fractional `t` makes two equal requests in
// one second two signatures. Pure functions; the replay store is separate.
export const SIGNATURE_TOLERANCE_SECS = 300;

export interface SignedRequest {
  method: string;
  pathWithQuery: string;
  idempotencyKey?: string;
  body: Buffer | string;
}

export function computeSignature(secret: string, t: string, req: SignedRequest): string {
  return createHmac('sha256', secret)
    .update(`${t}\n${req.method.toUpperCase()}\n${req.pathWithQuery}\n${req.idempotencyKey ?? ''}\n`)
    .update(req.body)
    .digest('hex');
}

const hasLineBreak = (s: string | undefined) => s !== undefined && /[\r\n]/.test(s);

// `t` defaults to now, in seconds with milliseconds.
export function signatureHeader(secret: string, req: SignedRequest, t: number | string = (Date.now() / 1000).toFixed(3)): string {
  if (hasLineBreak(req.pathWithQuery) || hasLineBreak(req.idempotencyKey))
    throw new Error('A path or Idempotency-Key with a line break cannot be sent, nor signed');
  return `t=${t}, v2=${computeSignature(secret, String(t), req)}`;
}

export type Verification = { ok: true; t: number; mac: string } | { ok: false; reason: string };

const FORMAT = 'The signature header must be "t=<unix seconds, optionally with a fraction>, v2=<hex HMAC-SHA256>"';

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
  const candidates = parts.get('v2') ?? [];
  if (!candidates.length && parts.has('v1')) {
    return { ok: false, reason: 'Signature v1 is no longer accepted: sign with v2 (fields joined by newlines), see docs/api.md' };
  }
  if (!tText || !/^\d{1,12}(\.\d{1,9})?$/.test(tText) || candidates.length === 0) return { ok: false, reason: FORMAT };
  const t = Number(tText);
  if (Math.abs(nowSecs - t) > SIGNATURE_TOLERANCE_SECS) {
    return { ok: false, reason: `The signature timestamp is more than ${SIGNATURE_TOLERANCE_SECS} s from now` };
  }
  const paths = typeof req.pathWithQuery === 'string' ? [req.pathWithQuery] : req.pathWithQuery;
  // A field with a line break would make the string ambiguous again; no client can send one.
  if (hasLineBreak(req.idempotencyKey) || paths.some(hasLineBreak)) return { ok: false, reason: 'The signature does not match the request' };
  for (const pathWithQuery of paths) {
    const expected = Buffer.from(computeSignature(secret, tText, { ...req, pathWithQuery }), 'hex');
    for (const mac of candidates) {
      if (/^[0-9a-f]{64}$/i.test(mac) && timingSafeEqual(Buffer.from(mac, 'hex'), expected)) return { ok: true, t, mac: mac.toLowerCase() };
    }
  }
  return { ok: false, reason: 'The signature does not match the request' };
}
