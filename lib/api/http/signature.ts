import { createHmac, timingSafeEqual } from 'node:crypto';

// Admin API request signing, version 3: `signature: t=<unix seconds, optionally with a fraction>,
// v3=<hex HMAC-SHA256>` over "<t>\n<METHOD>\n<path with query>\n<Idempotency-Key, empty if
// none>\n<tenant-id, empty if none>\n<raw body>", with `t` exactly as sent. A URL and a header
// value cannot hold a newline and the body comes last, so the string has one reading: no character
// can move from one field to the next (v1 joined them with ".", which can). Signing the key means a
// request cannot lose it on the way (and then act again on the FSP's retry); signing the tenant
// means a request made for one tenant cannot be replayed for another, or for none (v2 left it out:
// the operator's signed GET read any tenant's data for 300 s); a fractional `t` makes two equal
// requests in one second two signatures. Pure functions; the replay store is separate.
export const SIGNATURE_TOLERANCE_SECS = 300;

export interface SignedRequest {
  method: string;
  pathWithQuery: string;
  idempotencyKey?: string;
  tenantId?: string; // the tenant-id header's value
  body: Buffer | string;
}

export function computeSignature(secret: string, t: string, req: SignedRequest): string {
  return createHmac('sha256', secret)
    .update(`${t}\n${req.method.toUpperCase()}\n${req.pathWithQuery}\n${req.idempotencyKey ?? ''}\n${req.tenantId ?? ''}\n`)
    .update(req.body)
    .digest('hex');
}

const hasLineBreak = (s: string | undefined) => s !== undefined && /[\r\n]/.test(s);

// `t` defaults to now, in seconds with milliseconds.
export function signatureHeader(secret: string, req: SignedRequest, t: number | string = (Date.now() / 1000).toFixed(3)): string {
  if ([req.pathWithQuery, req.idempotencyKey, req.tenantId].some(hasLineBreak))
    throw new Error('A path, Idempotency-Key or tenant-id with a line break cannot be sent, nor signed');
  return `t=${t}, v3=${computeSignature(secret, String(t), req)}`;
}

export type Verification = { ok: true; t: number; mac: string } | { ok: false; reason: string };

const FORMAT = 'The signature header must be "t=<unix seconds, optionally with a fraction>, v3=<hex HMAC-SHA256>"';
// The versions before v3, each refused by name.
const RETIRED: Record<string, string> = {
  v1: 'Signature v1 is no longer accepted: sign with v3 (fields joined by newlines, the tenant-id header included), see docs/api.md',
  v2: 'Signature v2 is no longer accepted: sign with v3 (the tenant-id header is signed too, after the Idempotency-Key), see docs/api.md',
};

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
  const candidates = parts.get('v3') ?? [];
  const retired = Object.keys(RETIRED).find((v) => parts.has(v));
  if (!candidates.length && retired) return { ok: false, reason: RETIRED[retired] };
  if (!tText || !/^\d{1,12}(\.\d{1,9})?$/.test(tText) || candidates.length === 0) return { ok: false, reason: FORMAT };
  const t = Number(tText);
  if (Math.abs(nowSecs - t) > SIGNATURE_TOLERANCE_SECS) {
    return { ok: false, reason: `The signature timestamp is more than ${SIGNATURE_TOLERANCE_SECS} s from now` };
  }
  const paths = typeof req.pathWithQuery === 'string' ? [req.pathWithQuery] : req.pathWithQuery;
  // A field with a line break would make the string ambiguous again; no client can send one.
  if (hasLineBreak(req.idempotencyKey) || hasLineBreak(req.tenantId) || paths.some(hasLineBreak))
    return { ok: false, reason: 'The signature does not match the request' };
  for (const pathWithQuery of paths) {
    const expected = Buffer.from(computeSignature(secret, tText, { ...req, pathWithQuery }), 'hex');
    for (const mac of candidates) {
      if (/^[0-9a-f]{64}$/i.test(mac) && timingSafeEqual(Buffer.from(mac, 'hex'), expected)) return { ok: true, t, mac: mac.toLowerCase() };
    }
  }
  return { ok: false, reason: 'The signature does not match the request' };
}
