import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { listen, readBody } from '../start/listen';
import { sigV4Refusal } from './sigv4';

// The audit bucket's local stand-in: the S3 calls the service makes (PutObject, GetObject,
// ListObjectsV2, path-style), each signed with SigV4 for s3 by the local credentials, and nothing
// that changes what is written. As the bucket on AWS (Object Lock in compliance mode, a policy that
// denies deletes and unconditional puts), an object is written once: a put must be conditional
// (If-None-Match: *, else 403) and of a key that holds none (else 412); a DELETE, or any other method, is 403 AccessDenied. Each
// object is a file under <data folder>/audit-store/<bucket>/, opened with exclusive create (`wx`),
// so that not even a race of two puts replaces one; without a data folder, a temporary folder.
const MAX_OBJECT_BYTES = 16 * 1024 * 1024;
const KEY = /^[A-Za-z0-9!_.*'()/-]{1,1024}$/;

const xmlError = (code: string, message: string) => `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`;
const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

export async function startAuditStore(opts: { port: number; dataDir?: string }) {
  const temporary = !opts.dataDir;
  const root = opts.dataDir ? join(opts.dataDir, 'audit-store') : mkdtempSync(join(tmpdir(), 'audit-store-'));
  mkdirSync(root, { recursive: true });

  const fileOf = (bucket: string, key: string) => join(root, bucket, ...key.split('/'));
  const keysOf = (bucket: string): string[] => {
    const dir = join(root, bucket);
    if (!existsSync(dir)) return [];
    return (readdirSync(dir, { recursive: true, withFileTypes: true }) as { name: string; parentPath: string; isFile(): boolean }[])
      .filter((e) => e.isFile())
      .map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'))
      .sort();
  };

  function list(bucket: string, q: URLSearchParams): string {
    const prefix = q.get('prefix') ?? '';
    const delimiter = q.get('delimiter') ?? '';
    const after = q.get('continuation-token') ?? q.get('start-after') ?? '';
    const max = Math.min(Number(q.get('max-keys') ?? 1000) || 1000, 1000);
    const keys: string[] = [];
    const prefixes = new Set<string>();
    let last = '';
    let truncated = false;
    for (const key of keysOf(bucket)) {
      if (!key.startsWith(prefix) || key <= after) continue;
      const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
      const common = cut >= 0 ? key.slice(0, cut + delimiter.length) : undefined;
      if (common && prefixes.has(common)) continue;
      if (keys.length + prefixes.size === max) {
        truncated = true;
        break;
      }
      if (common) prefixes.add(common);
      else keys.push(key);
      last = common ? `${common}\uffff` : key;
    }
    const contents = keys.map((k) => `<Contents><Key>${escapeXml(k)}</Key></Contents>`).join('');
    const common = [...prefixes].map((p) => `<CommonPrefixes><Prefix>${escapeXml(p)}</Prefix></CommonPrefixes>`).join('');
    const next = truncated ? `<NextContinuationToken>${escapeXml(last)}</NextContinuationToken>` : '';
    return `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>${bucket}</Name><Prefix>${escapeXml(prefix)}</Prefix><KeyCount>${keys.length + prefixes.size}</KeyCount><IsTruncated>${truncated}</IsTruncated>${next}${contents}${common}</ListBucketResult>`;
  }

  const server: Server = createServer(async (req, res) => {
    const reply = (status: number, body = '', type = 'application/xml') => {
      res.writeHead(status, { 'content-type': type });
      res.end(body);
    };
    const body = await readBody(req, MAX_OBJECT_BYTES);
    if (body === 'too_large') return reply(400, xmlError('EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size'));
    const url = new URL(req.url ?? '/', 'http://localhost');
    const unsigned = await sigV4Refusal(req, url.pathname, url.searchParams, body, { service: 's3' });
    if (unsigned) return reply(403, xmlError('SignatureDoesNotMatch', unsigned));
    const [, bucket, ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    if (!bucket) return reply(403, xmlError('AccessDenied', 'Access Denied'));
    if (req.method === 'GET' && !key) return reply(200, list(bucket, url.searchParams));
    if (!KEY.test(key) || key.split('/').some((part) => part === '' || part === '.' || part === '..'))
      return reply(400, xmlError('InvalidArgument', 'This store takes plain keys only'));
    const file = fileOf(bucket, key);
    if (req.method === 'GET') {
      if (!existsSync(file)) return reply(404, xmlError('NoSuchKey', 'The specified key does not exist.'));
      return reply(200, readFileSync(file, 'utf8'), String(req.headers['content-type'] ?? 'application/json'));
    }
    if (req.method !== 'PUT') return reply(403, xmlError('AccessDenied', `${req.method} is denied: objects are write-once`));
    // The bucket policy's: a put that could replace an object is denied, whether one is there or not.
    if (req.headers['if-none-match'] !== '*') return reply(403, xmlError('AccessDenied', 'A put must be conditional (If-None-Match: *)'));
    const checksum = req.headers['x-amz-checksum-sha256'];
    if (checksum !== undefined && checksum !== createHash('sha256').update(body).digest('base64'))
      return reply(400, xmlError('BadDigest', 'The SHA256 you specified did not match the calculated checksum.'));
    mkdirSync(dirname(file), { recursive: true });
    try {
      writeFileSync(file, body, { flag: 'wx' });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      return reply(412, xmlError('PreconditionFailed', 'At least one of the pre-conditions you specified did not hold'));
    }
    reply(200);
  });
  const { port, stop } = await listen(server, opts.port);
  return {
    endpoint: `http://127.0.0.1:${port}`,
    root,
    stop: async () => {
      await stop();
      if (temporary) rmSync(root, { recursive: true, force: true });
    },
  };
}
export type AuditStoreEmulator = Awaited<ReturnType<typeof startAuditStore>>;
