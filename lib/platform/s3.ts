import { createHash } from 'node:crypto';
import { fromEnv } from '@aws-sdk/credential-provider-env';
import type { Bucket } from '../shared/node';
import { boundedFetch } from './net/fetch';
import { s3Signer } from './sigv4';

// The few S3 calls of the audit trail (lib/audit), signed with the function's credentials (SigV4),
// without the SDK's S3 client (a dependency of its own, and most of a bundle). The same wire on AWS
// and on the local write-once store (infra/local/emulators/audit-store.ts). Objects are written
// once: every put is conditional (If-None-Match), which the bucket's policy demands of any put.
// Each call names its IAM action, as the package test reads a bundle's calls.
export type { Bucket };

const TIMEOUT_MS = 10_000;
const MAX_BYTES = 16 * 1024 * 1024;
let sign: ReturnType<typeof s3Signer> | undefined;

const objectUrl = (b: Bucket, key: string, query = '') =>
  new URL(`${b.endpoint ? `${b.endpoint.replace(/\/$/, '')}/${b.name}` : `https://${b.name}.s3.${b.region}.amazonaws.com`}/${key}${query}`);

// `payloadHash`: the body's SHA-256 in hex, when the caller has it.
async function call(
  b: Bucket,
  action: string,
  method: string,
  url: URL,
  headers: Record<string, string> = {},
  body?: string,
  payloadHash?: string,
): Promise<Response> {
  sign ??= s3Signer({ region: b.region, credentials: fromEnv() });
  const sent = await sign(method, url, headers, body, payloadHash);
  const res = await boundedFetch(url, { method, headers: sent, body }, { allowPrivate: true, timeoutMs: TIMEOUT_MS, maxBytes: MAX_BYTES });
  if (res.ok || res.status === 404 || res.status === 412) return res;
  throw new Error(`${action} ${url.pathname}: ${res.status} ${(await res.text()).slice(0, 300)}`);
}

// Writes an object that must not exist yet: 'exists' when it does (a retry of the same write).
export async function putNewObject(b: Bucket, key: string, body: string): Promise<'written' | 'exists'> {
  const digest = createHash('sha256').update(body).digest(); // the checksum and the signed payload hash
  const headers = { 'if-none-match': '*', 'content-type': 'application/json', 'x-amz-checksum-sha256': digest.toString('base64') };
  const res = await call(b, 's3:PutObject', 'PUT', objectUrl(b, key), headers, body, digest.toString('hex'));
  await res.body?.cancel();
  return res.status === 412 ? 'exists' : 'written';
}

export async function getObject(b: Bucket, key: string): Promise<string | undefined> {
  const res = await call(b, 's3:GetObject', 'GET', objectUrl(b, key));
  if (res.status === 404) return void (await res.body?.cancel());
  return res.text();
}

export interface Listing {
  keys: string[];
  prefixes: string[]; // with a delimiter: the common prefixes
  next?: string; // the continuation token, when there are more
}

// ListObjectsV2: keys under `prefix` in key order, after `startAfter`.
export async function listObjects(
  b: Bucket,
  opts: { prefix: string; startAfter?: string; delimiter?: string; maxKeys?: number; continuation?: string },
): Promise<Listing> {
  const q = new URLSearchParams({ 'list-type': '2', prefix: opts.prefix });
  if (opts.startAfter) q.set('start-after', opts.startAfter);
  if (opts.delimiter) q.set('delimiter', opts.delimiter);
  if (opts.maxKeys) q.set('max-keys', String(opts.maxKeys));
  if (opts.continuation) q.set('continuation-token', opts.continuation);
  const url = objectUrl(b, '', `?${q}`);
  const xml = await (await call(b, 's3:ListBucket', 'GET', url)).text();
  const all = (tag: string, within = xml) => [...within.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, 'g'))].map((m) => unescapeXml(m[1]));
  const common = [...xml.matchAll(/<CommonPrefixes>([\s\S]*?)<\/CommonPrefixes>/g)].flatMap((m) => all('Prefix', m[1]));
  const contents = [...xml.matchAll(/<Contents>([\s\S]*?)<\/Contents>/g)].flatMap((m) => all('Key', m[1]));
  const next = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? all('NextContinuationToken')[0] : undefined;
  return { keys: contents, prefixes: common, ...(next && { next }) };
}

const unescapeXml = (s: string) => s.replace(/&(lt|gt|quot|apos|amp);/g, (_, e: string) => ({ lt: '<', gt: '>', quot: '"', apos: "'", amp: '&' })[e] as string);
