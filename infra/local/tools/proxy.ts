// The local signing reverse proxy that `npm start` runs for the API collection (bruno/) and curl:
// http://localhost/<path> goes to Node A's Admin API, http://localhost/node-b/<path> to Node B's
// (and /node-c/<path> to Node C's),
// each signed over exactly the path, query, Idempotency-Key and body bytes it forwards, so that
// no client needs signing code. Answers, problem+json errors included, pass through untouched.

import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, request, type ServerResponse } from 'node:http';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream';
import { httpErrors } from '../../../lib/api/http/errors';
import { problemResponse } from '../../../lib/api/http/problem';
import { commonErrors } from '../../../lib/shared/errors';
import { DEFAULT_PROXY_PORT, LOCAL_ADMIN_API_SECRET, NODES, type NodeName } from '../start/defaults';
import { localErrors } from '../start/errors';
import { listen, readBody } from '../start/listen';
import { ROOT } from '../start/serverless-config';
import { adminSigner } from './admin-client';

// The nodes beside Node A, each under a prefix of the proxy's: /node-b, /node-c.
export type OtherNode = Exclude<NodeName, 'a'>;
export const nodePrefix = (node: OtherNode) => `/node-${node}`;
// Well over the Admin API's own 64 KiB, so that a client sees the service's 413, not the proxy's.
const MAX_BODY = 1024 * 1024;
// Hop-by-hop headers (RFC 9110, 7.6.1) describe one connection, not the request: never forwarded.
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];
// Any process or web page on this machine can reach the proxy, and it signs what it gets: it takes
// only requests addressed to a loopback name (no DNS rebinding: ./listen.ts checks the Host of
// every local server) and none a browser sent cross-site.
const LOOPBACK_ORIGIN = /^(localhost|127\.0\.0\.1|\[::1\])(:\d+)?$/i;

export interface ProxyOptions {
  port: number;
  secret: string;
  nodeA: string; // Node A's Admin API base URL
  others?: Partial<Record<OtherNode, () => string>>; // theirs, looked up per request: they may start, stop or move meanwhile
  log?: (line: string) => void;
}

export interface SigningProxy {
  url: string;
  port: number;
  stop(): Promise<void>;
}

// Raw header pairs less the hop-by-hop ones (with those the Connection header names) and `drop`.
function forwardable(raw: string[], drop: string[]): string[] {
  const named = raw.flatMap((v, i) => (i % 2 === 1 && raw[i - 1].toLowerCase() === 'connection' ? v.split(',') : []));
  const out = new Set([...HOP_BY_HOP, ...drop, ...named.map((n) => n.trim().toLowerCase())]);
  return raw.flatMap((v, i) => (i % 2 === 0 && !out.has(v.toLowerCase()) ? [v, raw[i + 1]] : []));
}

// Anything thrown, as lib/api/http answers it: a DomainError as its problem, anything else a 500.
export function sendProblem(res: ServerResponse, thrown: unknown) {
  const r = problemResponse(thrown);
  res.writeHead(r.statusCode, r.headers as Record<string, string>);
  res.end(r.body);
}

export const fromLocalOrigin = (req: IncomingMessage) => {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  try {
    return LOOPBACK_ORIGIN.test(new URL(origin).host);
  } catch {
    return false; // "null", or not a URL
  }
};

// The proxy's requests, signed and forwarded; also the console's (./console.ts), without the other
// nodes and unsigned (no `secret`): the console's route takes the operator's token instead.
export function signingHandler(opts: Omit<ProxyOptions, 'port' | 'secret'> & { secret?: string }): RequestListener {
  const log = opts.log ?? (() => undefined);
  const signer = opts.secret ? adminSigner(opts.secret) : undefined;
  async function forward(req: IncomingMessage, res: ServerResponse) {
    const target = req.url ?? '/';
    if (!fromLocalOrigin(req)) {
      const detail = 'The signing proxy takes only requests to localhost from this machine, not from web pages of other sites';
      return sendProblem(res, localErrors.proxyRefused(detail));
    }
    if (!target.startsWith('/')) {
      return sendProblem(res, commonErrors.invalidRequest(`Send requests to http://localhost/<path>, not ${target}`));
    }
    const under = (prefix: string) => target === prefix || target.startsWith(`${prefix}/`) || target.startsWith(`${prefix}?`);
    const other = (Object.keys(opts.others ?? {}) as OtherNode[]).find((name) => under(nodePrefix(name)));
    const node = `Node ${(other ?? 'a').toUpperCase()}`;
    const base = new URL(other ? opts.others![other]!() : opts.nodeA);
    const rest = other ? target.slice(nodePrefix(other).length) : target;
    const path = base.pathname.replace(/\/$/, '') + (rest.startsWith('/') ? rest : `/${rest}`);

    const body = await readBody(req, MAX_BODY);
    if (body === 'too_large') return sendProblem(res, httpErrors.payloadTooLarge(`The body is over ${MAX_BODY} bytes`));
    const method = req.method ?? 'GET';
    // A repeated Idempotency-Key or tenant-id is forwarded as sent, and the service refuses it (400).
    const [idempotencyKey, tenantId] = ['idempotency-key', 'tenant-id'].map((name) => req.headers[name] as string | undefined);
    // The body is read whole already, so an Expect: 100-continue has nothing left to wait for.
    const headers = ['host', base.host, ...forwardable(req.rawHeaders, ['host', 'signature', 'content-length', 'expect'])];
    if (body.length || req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined) {
      headers.push('content-length', String(body.length));
    }
    if (signer) headers.push('signature', signer.sign({ method, pathWithQuery: path, idempotencyKey, tenantId, body }));

    const upstream = request({ protocol: base.protocol, hostname: base.hostname, port: base.port, method, path, headers });
    upstream.on('response', (answer) => {
      log(`[proxy] ${method} ${target} -> ${node} ${answer.statusCode}`);
      res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardable(answer.rawHeaders, []));
      pipeline(answer, res, () => undefined);
    });
    upstream.on('error', (e: NodeJS.ErrnoException) => {
      if (res.headersSent || res.destroyed) return void res.destroy();
      log(`[proxy] ${method} ${target} -> ${node} unreachable (${e.code ?? e.message})`);
      const start = other ? `. Start it with \`npm run start:node-${other}\` (in another terminal)` : '';
      const detail = `${node} is not running: nothing answers at ${base.origin} (${e.code ?? e.message})${start}`;
      sendProblem(res, localErrors.nodeNotRunning(detail));
    });
    // A client that leaves before the answer ends also ends the request it started.
    res.on('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    upstream.end(body);
  }
  // A failure of the proxy itself (a client gone mid-body, a bad URL of another node) is a 502 of its own.
  return (req, res) => {
    forward(req, res).catch((e: Error) => {
      if (res.headersSent) return void res.destroy();
      sendProblem(res, localErrors.proxyFailed(e.message));
    });
  };
}

export async function startProxy(opts: ProxyOptions): Promise<SigningProxy> {
  const { port, stop } = await listen(createServer(signingHandler(opts)), opts.port);
  return { url: port === 80 ? 'http://localhost' : `http://localhost:${port}`, port, stop };
}

// Where Node B (`npm run start:node-b`), or C, says its Admin API is, so that Node A's proxy finds it
// on whatever ports it was given; the default ports when it has not said (or runs elsewhere).
const ADMIN_URL_FILE = 'admin-url';
export function nodeAdminUrl(node: OtherNode, dataDir = resolve(ROOT, NODES[node].dataDir)): string {
  try {
    return readFileSync(join(dataDir, ADMIN_URL_FILE), 'utf8').trim();
  } catch {
    return `http://localhost:${NODES[node].ports.admin}`;
  }
}

export interface LocalProxy {
  line: string; // for the banner: where it listens, or why it does not and what to do
  stop(): Promise<void>;
}

// What `npm run start:node-b` (or c) does for the proxy: say where its Admin API is while it runs.
export function announceNode(node: OtherNode, dataDir: string, adminUrl: string): LocalProxy {
  const file = join(dataDir, ADMIN_URL_FILE);
  writeFileSync(file, `${adminUrl}\n`);
  return {
    line: `npm start's proxy sends http://localhost${nodePrefix(node)}/<path> here, signed (bruno/ environment node-${node})`,
    stop: async () => rmSync(file, { force: true }),
  };
}

function bindFailure(e: NodeJS.ErrnoException, port: number): string {
  const other = 'pick another port, e.g. PROXY_PORT=8080 npm start';
  if (e.code === 'EACCES') return `the OS does not let this user bind port ${port} (below 1024: root only on Linux); ${other}`;
  if (e.code === 'EADDRINUSE') return `port ${port} is in use; ${other}`;
  return `${e.message}; ${other}`;
}

// Why `who` (the signing proxy, the console) must not sign with `secret`, or undefined when it may.
// Both sign for anyone on this machine, which is harmless with the local default (it is public)
// and a hole with a secret of the user's own: that takes PROXY_ALLOW_CUSTOM_SECRET=1.
export function customSecretRefusal(who: string, secret: string, env: NodeJS.ProcessEnv): string | undefined {
  if (secret === LOCAL_ADMIN_API_SECRET || /^(1|true)$/i.test(env.PROXY_ALLOW_CUSTOM_SECRET ?? '')) return undefined;
  return `ADMIN_API_SECRET is not the local default, and ${who} would sign with it for anyone on this machine; PROXY_ALLOW_CUSTOM_SECRET=1 lets it`;
}

// The proxy as `npm start` (Node A) runs it, on PROXY_PORT (default 80). It never fails the start.
// With a secret of the user's own, it stays off unless PROXY_ALLOW_CUSTOM_SECRET=1 says otherwise.
export async function startLocalProxy(opts: { adminUrl: string; secret: string; env?: NodeJS.ProcessEnv; log?: (line: string) => void }): Promise<LocalProxy> {
  const env = opts.env ?? process.env;
  const off = (why: string): LocalProxy => ({ line: `off: ${why}`, stop: async () => undefined });
  const refusal = customSecretRefusal('the proxy', opts.secret, env);
  if (refusal) return off(refusal);
  const custom = opts.secret !== LOCAL_ADMIN_API_SECRET;
  const port = Number(env.PROXY_PORT || DEFAULT_PROXY_PORT);
  try {
    const others = { b: () => nodeAdminUrl('b'), c: () => nodeAdminUrl('c') };
    const proxy = await startProxy({ port, secret: opts.secret, nodeA: opts.adminUrl, others, log: opts.log });
    const signing = custom ? '; signs with your ADMIN_API_SECRET' : '';
    const routes = `/<path> to Node A, ${nodePrefix('b')}/<path> to Node B, ${nodePrefix('c')}/<path> to Node C`;
    return { line: `${proxy.url}   (signs for you: ${routes}; API collection in bruno/${signing})`, stop: proxy.stop };
  } catch (e) {
    return off(`could not listen on port ${port}: ${bindFailure(e as NodeJS.ErrnoException, port)}`);
  }
}
