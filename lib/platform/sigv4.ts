import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { escapeUri } from '@smithy/core/protocols';
import type { AwsCredentialIdentityProvider } from '@smithy/types';

// SigV4 as this repository signs its own requests (DynamoDB, S3, the IAM-authorized introspection
// route), as @smithy/signature-v4 would (test/unit/sigv4.test.ts holds them to it); and the SHA-256
// (and HMAC) that @smithy/signature-v4 asks for, on Node's crypto, which every checker here hands it.
type Data = string | ArrayBuffer | ArrayBufferView;
const bytes = (d: Data) => (typeof d === 'string' ? d : d instanceof ArrayBuffer ? new Uint8Array(d) : new Uint8Array(d.buffer, d.byteOffset, d.byteLength));

export class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: Data) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', bytes(secret));
  }
  update(data: Data) {
    this.hash.update(bytes(data));
  }
  async digest() {
    return new Uint8Array(this.hash.digest());
  }
}

// A signer of one endpoint's POSTs (AWS's JSON protocols, on every store's call; the introspection
// route, on every Open Payments request): the headers
// @smithy/signature-v4 signs for them, made without its per-call copy of the request and the HMAC it
// spends on a cache key, and with the day's signing key kept (issue 46: signing was a tenth of a
// function's CPU). The canonical path and query are the endpoint's, made once.
export function postSigner(opts: { service: string; region: string; url: URL; credentials: AwsCredentialIdentityProvider }) {
  const { url } = opts;
  const canonicalPath = escapeUri(normalizedPath(url.pathname)).replace(/%2F/g, '/');
  const canonicalQuery = canonicalQueryOf(url);
  const sign = signer(opts);
  // `headers` in lower case; `now` for a test.
  return (headers: Record<string, string>, body: string, now = new Date()): Promise<Record<string, string>> =>
    sign('POST', url.host, canonicalPath, canonicalQuery, headers, hex(body), now);
}

// A signer of S3's requests (the audit trail's, lib/platform/s3.ts), as @smithy/signature-v4 signs
// them for S3 (`uriEscapePath: false`): the path as the URL has it (S3's are neither normalized nor
// escaped twice), and the payload's hash signed, in x-amz-content-sha256; `payloadHash` when the
// caller has it (a put's checksum is the same hash), so that the body is hashed once.
export function s3Signer(opts: { region: string; credentials: AwsCredentialIdentityProvider }) {
  const sign = signer({ ...opts, service: 's3' });
  // `headers` in lower case; `now` for a test.
  return (method: string, url: URL, headers: Record<string, string>, body = '', payloadHash = hex(body), now = new Date()) =>
    sign(method, url.host, url.pathname, canonicalQueryOf(url), { ...headers, 'x-amz-content-sha256': payloadHash }, payloadHash, now);
}

// SigV4's headers for a request whose canonical path and query are given (`headers` in lower case,
// but host, which the HTTP client sets), with the day's signing key kept.
function signer({ service, region, credentials }: { service: string; region: string; credentials: AwsCredentialIdentityProvider }) {
  let kept: { day: string; secret: string; key: Buffer } | undefined;
  const signingKey = (day: string, secret: string) => {
    if (kept?.day !== day || kept.secret !== secret) {
      const key = [day, region, service, 'aws4_request'].reduce((k: Buffer | string, part) => createHmac('sha256', k).update(part).digest(), `AWS4${secret}`);
      kept = { day, secret, key: key as Buffer };
    }
    return kept.key;
  };
  return async (
    method: string,
    host: string,
    canonicalPath: string,
    canonicalQuery: string,
    headers: Record<string, string>,
    payloadHash: string,
    now: Date,
  ) => {
    const identity = await credentials();
    const amzDate = now.toISOString().replace(/[-:]|\.\d{3}/g, ''); // 20260102T030405Z
    const day = amzDate.slice(0, 8);
    const sent: Record<string, string> = { ...headers, 'x-amz-date': amzDate };
    if (identity.sessionToken) sent['x-amz-security-token'] = identity.sessionToken;
    const all: Record<string, string> = { ...sent, host };
    const names = Object.keys(all).sort();
    const signed = names.join(';');
    const canonical = `${method}\n${canonicalPath}\n${canonicalQuery}\n${names.map((n) => `${n}:${all[n].trim().replace(/\s+/g, ' ')}\n`).join('')}\n${signed}\n${payloadHash}`;
    const scope = `${day}/${region}/${service}/aws4_request`;
    const signature = createHmac('sha256', signingKey(day, identity.secretAccessKey))
      .update(`AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${hex(canonical)}`)
      .digest('hex');
    sent.authorization = `AWS4-HMAC-SHA256 Credential=${identity.accessKeyId}/${scope}, SignedHeaders=${signed}, Signature=${signature}`;
    return sent;
  };
}

// A URL's query as SigV4 signs it: each name and value escaped, in order of name, then value.
const canonicalQueryOf = (url: URL) =>
  [...url.searchParams]
    .map(([k, v]) => [escapeUri(k), escapeUri(v)])
    .sort(([k1, v1], [k2, v2]) => (k1 === k2 ? (v1 < v2 ? -1 : 1) : k1 < k2 ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');

const hex = (text: string) => createHash('sha256').update(text).digest('hex');

// A path's segments without the empty ones, `.` and `..`, as SigV4 signs it (but for S3).
function normalizedPath(path: string): string {
  const segments: string[] = [];
  for (const s of path.split('/')) {
    if (s === '..') segments.pop();
    else if (s && s !== '.') segments.push(s);
  }
  return `${path.startsWith('/') ? '/' : ''}${segments.join('/')}${segments.length && path.endsWith('/') ? '/' : ''}`;
}
