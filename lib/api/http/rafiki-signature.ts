import { createHmac, timingSafeEqual } from 'node:crypto';
import { canonicalJson } from '../../platform/canonical-json';
import { SIGNATURE_TOLERANCE_SECS, type Verification } from './signature';

// Rafiki's Admin API signature, which its clients send to /graphql: `signature: t=<unix
// milliseconds>, v1=<hex HMAC-SHA256(secret, "<t>.<RFC 8785 JSON of the request body>")>`. The body
// is {query, variables, operationName}, so the JSON's canonical form is what both sides sign, however
// the client spaced it. The tenant-id header is not signed here (Rafiki's form): the replay guard is
// the deployment's, so a signature used for one tenant is used for all (lib/api/http/store.ts).
// The window is the Admin API's own (SIGNATURE_TOLERANCE_SECS), on both sides of now.

export function rafikiSignature(secret: string, t: number | string, body: unknown): string {
  return createHmac('sha256', secret)
    .update(`${t}.${canonicalJson(body)}`)
    .digest('hex');
}

export const rafikiSignatureHeader = (secret: string, body: unknown, t = Date.now()) => `t=${t}, v1=${rafikiSignature(secret, t, body)}`;

const FORMAT = 'The signature header must be "t=<unix milliseconds>, v1=<hex HMAC-SHA256>" (Rafiki\'s Admin API signature)';

// `t` in the answer is in seconds, as the replay guard keeps it.
export function verifyRafikiSignature(header: string | undefined, secret: string, body: unknown, nowMs: number): Verification {
  if (!header) return { ok: false, reason: 'The signature header is missing' };
  const match = /^t=(\d{1,15}), ?v1=([0-9a-fA-F]{64})$/.exec(header.trim());
  if (!match) return { ok: false, reason: FORMAT };
  const [, tText, mac] = match;
  if (Math.abs(nowMs - Number(tText)) > SIGNATURE_TOLERANCE_SECS * 1000) {
    return { ok: false, reason: `The signature timestamp is more than ${SIGNATURE_TOLERANCE_SECS} s from now` };
  }
  const expected = Buffer.from(rafikiSignature(secret, tText, body), 'hex');
  if (!timingSafeEqual(Buffer.from(mac, 'hex'), expected)) return { ok: false, reason: 'The signature does not match the request' };
  return { ok: true, t: Number(tText) / 1000, mac: mac.toLowerCase() };
}
