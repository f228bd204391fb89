import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import type { SignatureV4 } from '@smithy/signature-v4';

// SigV4 as this repository signs its own requests (DynamoDB, S3, the IAM-authorized introspection
// route): @smithy/signature-v4 with the SHA-256 (and HMAC) it asks for, on Node's crypto, which every
// signer and checker here hands it.
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

// The headers of a request to `url`, signed (but `host`, which the HTTP client sets from the URL).
export async function signedHeaders(signer: SignatureV4, method: string, url: URL, headers: Record<string, string>, body?: string) {
  const signed = await signer.sign({
    method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname,
    query: Object.fromEntries(url.searchParams),
    headers: { host: url.host, ...headers },
    body,
  });
  const { host: _, ...sent } = signed.headers;
  return sent;
}
