import { getKeyId, type JWK, validateSignature, validateSignatureHeaders } from '@interledger/http-signature-utils';
import { httpsAsHttp } from '../../platform/runtime';
import { entriesOf, type Query, sentQueries } from './query';

// HTTP message signatures (RFC 9421) as Open Payments profiles them: Ed25519, label `sig1`,
// covering at least "@method" and "@target-uri", plus "authorization" when a token is sent and
// "content-digest" (SHA-512 of the body), "content-length" and "content-type" when there is a
// body. The key is found by the Signature-Input's keyid. A signature created more than
// CREATED_TOLERANCE_SECS from now is refused, which bounds how long a captured request could be
// replayed. Verification itself is @interledger/http-signature-utils'.
export const CREATED_TOLERANCE_SECS = 300;

export interface SignedRequest {
  method: string;
  // The URLs the client may have signed as @target-uri, most likely first (see targetUris).
  urls: string[];
  headers: Record<string, string>; // names in lower case
  body?: string; // exactly as received
}

export type Verified = { ok: true; keyId: string } | { ok: false; reason: string };

export async function verifySignature(req: SignedRequest, findKey: (keyId: string) => Promise<JWK | undefined>): Promise<Verified> {
  const like = { method: req.method, url: req.urls[0], headers: req.headers, body: req.body || undefined };
  if (!validateSignatureHeaders(like)) {
    return {
      ok: false,
      reason:
        'The request must be signed (Signature and Signature-Input headers, sig1, covering @method and @target-uri, and authorization, content-digest, content-length and content-type where present, with a matching Content-Digest)',
    };
  }
  const input = req.headers['signature-input'];
  // The library checks the digest only when the signature covers it: a body it does not cover could be anything.
  if (like.body && !coveredComponents(input).includes('content-digest')) {
    return { ok: false, reason: 'A request with a body must be signed over its content-digest (with content-length and content-type)' };
  }
  const created = Number(/;created=(\d+)/.exec(input)?.[1]);
  if (!Number.isFinite(created) || Math.abs(Date.now() / 1000 - created) > CREATED_TOLERANCE_SECS) {
    return { ok: false, reason: `The signature's created time must be within ${CREATED_TOLERANCE_SECS} s of now` };
  }
  const keyId = getKeyId(input);
  if (!keyId) return { ok: false, reason: 'The Signature-Input has no keyid' };
  const key = await findKey(keyId);
  if (!key) return { ok: false, reason: `The client publishes no key ${keyId}` };
  for (const url of req.urls) {
    if (await validateSignature(key, { ...like, url })) return { ok: true, keyId };
  }
  return { ok: false, reason: 'The signature does not match the request' };
}

// The components the sig1 signature covers, as its Signature-Input lists them: sig1=("@method" "content-digest" …);….
const coveredComponents = (input: string) =>
  (/sig1=\(([^)]*)\)/.exec(input)?.[1] ?? '')
    .split(' ')
    .filter(Boolean)
    .map((c) => c.replace(/"/g, ''));

// The @target-uri a client signed is the URL it sent, which the API sees as its public base (the
// custom domain) plus the path and query. The query is rebuilt the ways clients write it
// (./query.ts), in the order received and, should a proxy have reordered it, sorted; a root path
// is tried with and without its trailing slash.
// With LOCAL_FETCH_HTTPS_AS_HTTP (local runs), an https base is also tried as http: clients of such a
// node (Rafiki's useHttp) send, and so sign, https URLs as http.
export function targetUris(base: string, path: string, query: Query): string[] {
  const root = base.replace(/\/+$/, '');
  const roots = httpsAsHttp() && root.startsWith('https:') ? [root, `http:${root.slice('https:'.length)}`] : [root];
  const paths = roots.flatMap((r) => (path === '/' || path === '' ? [`${r}/`, r] : [`${r}${path}`]));
  const entries = entriesOf(query);
  if (!entries.length) return paths;
  const sorted = [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const queries = [...new Set([...sentQueries(entries), ...sentQueries(sorted)])];
  return paths.flatMap((p) => queries.map((q) => `${p}?${q}`));
}
