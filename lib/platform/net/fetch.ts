import { AsyncLocalStorage } from 'node:async_hooks';
import { type LookupAddress, lookup } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { Duplex } from 'node:stream';
import { httpsAsHttp } from '../runtime';
import { tracedFetch } from '../tracing';
import { blockedRange, isIpLiteral } from './addresses';

// The one way this service fetches a URL: every outbound HTTP request goes through boundedFetch,
// bounded so that a URL cannot exhaust memory or time, or reach inside the network:
// - the body is read as a stream and the connection dropped once it passes maxBytes (whatever
//   Content-Length says, or without one);
// - one deadline for the whole exchange, redirects and body included;
// - at most maxRedirects redirects, each hop checked again (none with `redirect: 'error'`; with
//   'manual', a redirect is the answer);
// - no loopback, private, link-local or other internal address (lib/platform/net/addresses.ts), checked on
//   the addresses the name resolves to, at connect time (the socket connects to the address that
//   was checked, so a name that answers differently the second time gains nothing), unless
//   allowPrivate.
// Who chose the URL decides allowPrivate: the operator's own configuration (EXCHANGE_RATES_URL,
// WEBHOOK_URL, a tenant's webhookUrl and ratesUrl, AUTH_SERVER_URL's introspection) may be
// private; URLs that clients and other nodes choose may not, unless ALLOW_PRIVATE_FETCH (nodes on
// one machine); a peer's connector may not, unless ALLOW_PRIVATE_PEERS names its tenant.
// Connections are kept alive and reused (a peer gets a request per ILP packet, a webhook one per
// event): each new one is checked when it connects.
export interface FetchLimits {
  allowPrivate: boolean;
  maxBytes?: number;
  timeoutMs?: number;
  maxRedirects?: number;
  // The caller reads the answer's status alone (a webhook's): answered once the status is in, the
  // body dropped (and its connection, if it passes maxBytes), never refused.
  statusOnly?: boolean;
}
export const MAX_BYTES = 64 * 1024;
const TIMEOUT_MS = 5000;
const MAX_REDIRECTS = 3;
// How long an idle connection is kept (less when the server's Keep-Alive says so, as fetch does).
const IDLE_MS = 4000;

export type FetchRefusal = 'too_large' | 'timeout' | 'too_many_redirects' | 'private_address' | 'unsupported_url';

export class OutboundFetchError extends Error {
  constructor(
    readonly reason: FetchRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundFetchError';
  }
}

// The system's code of a failed request (ECONNREFUSED, ENOTFOUND), if it has one.
export const errorCode = (e: unknown): string | undefined => {
  const err = e as { code?: unknown; cause?: { code?: unknown } } | undefined;
  const code = err?.code ?? err?.cause?.code;
  return typeof code === 'string' ? code : undefined;
};

const reachable = (addresses: LookupAddress[]) => addresses.filter((a) => !blockedRange(a.address));

// Resolves as dns.lookup does, keeping only the addresses allowed; none: an error naming the range.
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const allowed = reachable(addresses);
    if (!allowed.length) {
      const first = addresses[0];
      const refused = new OutboundFetchError('private_address', `${hostname} resolves to ${first?.address}, a ${blockedRange(first?.address ?? '')} address`);
      return callback(refused as NodeJS.ErrnoException, '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
};

// The internal range a URL's host is, or resolves to (every address of it): what a fetch of it
// refuses when it connects. Undefined for a public host, and for a name that does not resolve now
// (or not within LOOKUP_MS): the fetch checks it again.
const LOOKUP_MS = 3000;
export async function internalRange(url: string): Promise<string | undefined> {
  const { hostname } = new URL(url);
  if (isIpLiteral(hostname)) return blockedRange(hostname);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<LookupAddress[]>((done) => {
    timer = setTimeout(() => done([]), LOOKUP_MS);
  });
  const addresses = await Promise.race([dnsLookup(hostname, { all: true }).catch(() => []), late]).finally(() => clearTimeout(timer));
  return addresses.length && !reachable(addresses).length ? blockedRange(addresses[0].address) : undefined;
}

// Kept-alive connections. A pool reuses a socket for any request to its host and port, so the
// connections opened without the check have a pool of their own.
const agentOptions = { keepAlive: true, timeout: IDLE_MS };
const agents = {
  checked: {
    http: silentWhileIdle(new HttpAgent({ ...agentOptions, lookup: checkedLookup })),
    https: silentWhileIdle(new HttpsAgent({ ...agentOptions, lookup: checkedLookup })),
  },
  open: { http: silentWhileIdle(new HttpAgent(agentOptions)), https: silentWhileIdle(new HttpsAgent(agentOptions)) },
};

// A kept connection must say nothing while idle: what a server sent past its answer's length (a
// Content-Length that lied) would be read as the next request's answer. One that speaks is closed.
function silentWhileIdle<A extends HttpAgent>(agent: A): A {
  const keep = agent.keepSocketAlive.bind(agent) as unknown as (socket: Duplex) => boolean;
  const reuse = agent.reuseSocket.bind(agent);
  const hangUp = function (this: Duplex) {
    this.destroy();
  };
  agent.keepSocketAlive = ((socket: Duplex) => keep(socket) && Boolean(socket.once('data', hangUp))) as never;
  agent.reuseSocket = (socket, request) => {
    socket.off('data', hangUp);
    reuse(socket, request);
  };
  return agent;
}

interface Hop {
  url: URL;
  method: string;
  headers: Headers;
  body?: Buffer;
}

// One request, its answer read up to maxBytes (statusOnly: answered at its status, its body drained).
function exchange(hop: Hop, limits: Required<FetchLimits>, signal: AbortSignal): Promise<{ res: IncomingMessage; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const https = hop.url.protocol === 'https:';
    const options: RequestOptions = {
      method: hop.method,
      headers: Object.fromEntries(hop.headers),
      signal,
      agent: agents[limits.allowPrivate ? 'open' : 'checked'][https ? 'https' : 'http'],
    };
    const req = (https ? httpsRequest : httpRequest)(hop.url, options, (res) => {
      if (limits.statusOnly) {
        drain(req, res, limits.maxBytes);
        return resolve({ res, body: Buffer.alloc(0) });
      }
      const tooLarge = () => {
        req.destroy();
        reject(new OutboundFetchError('too_large', `The answer of ${hop.url.origin} is larger than ${limits.maxBytes} bytes`));
      };
      const declared = Number(res.headers['content-length']);
      if (declared > limits.maxBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > limits.maxBytes) tooLarge();
        else chunks.push(chunk);
      });
      res.on('end', () => resolve({ res, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (e) => reject(signal.aborted ? signal.reason : e));
    req.end(hop.body);
  });
}

// A body nobody reads, read to its end and dropped so that its connection serves again; past
// maxBytes, or not done within DRAIN_MS, the connection is dropped instead.
const DRAIN_MS = 1000;
function drain(req: ClientRequest, res: IncomingMessage, maxBytes: number) {
  let size = 0;
  const timer = setTimeout(() => req.destroy(), DRAIN_MS).unref();
  res.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > maxBytes) req.destroy();
  });
  res.on('close', () => clearTimeout(timer));
  res.on('error', () => undefined); // the connection dropped: nothing waits for this body
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NO_BODY = new Set([101, 204, 205, 304]);
// Credentials a redirect to another origin must not carry (as fetch drops Authorization).
const CREDENTIALS = ['authorization', 'cookie', 'signature', 'signature-input'];

// fetch's signature, bounded (and traced: lib/platform/tracing.ts). Rejects with an OutboundFetchError for what it refuses.
export const boundedFetch = (input: string | URL | Request, init: RequestInit | undefined, limits: FetchLimits): Promise<Response> =>
  tracedFetch(input, init, (request, again) => fetchWithin(request, again, limits));

async function fetchWithin(input: string | URL | Request, init: RequestInit | undefined, limits: FetchLimits): Promise<Response> {
  const all = { maxBytes: MAX_BYTES, timeoutMs: TIMEOUT_MS, maxRedirects: MAX_REDIRECTS, statusOnly: false, ...limits };
  const request = await outbound(input, init);
  // A timer of our own, not AbortSignal.any over AbortSignal.timeout: Node 20 holds a composite's
  // sources weakly, so a timeout signal nothing else holds can be collected and never fire (CI saw
  // a trickling server hold this fetch for 30 s).
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), all.timeoutMs);
  const cancel = () => deadline.abort(request.signal?.reason);
  if (request.signal?.aborted) cancel();
  else request.signal?.addEventListener('abort', cancel, { once: true });
  try {
    return await follow(request, all, deadline.signal);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', cancel);
  }
}

// What a request is made of, as follow() sends it.
interface Outbound {
  url: string;
  method: string;
  headers: Headers;
  redirect: RequestRedirect;
  signal?: AbortSignal;
  body?: Buffer;
}

// A URL with text or bytes to send (a webhook's event, an ILP packet) is taken as fetch would take
// it, without making a Request and reading its body back (a third of a webhook's delivery); anything
// else (a Request, a stream or a form, a method or URL that fetch refuses) is read through a Request.
const STANDARD = new Set(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);
async function outbound(input: string | URL | Request, init: RequestInit | undefined): Promise<Outbound> {
  const { body, method = 'GET' } = init ?? {};
  const plain = !(input instanceof Request) && (body == null || typeof body === 'string' || body instanceof Uint8Array);
  const url = plain ? new URL(input as string | URL) : undefined;
  const upper = method.toUpperCase();
  if (url && !url.username && !url.password && STANDARD.has(upper) && (body == null || (upper !== 'GET' && upper !== 'HEAD'))) {
    const headers = new Headers(init?.headers);
    if (typeof body === 'string' && !headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
    const bytes = body == null ? undefined : Buffer.from(body as string | Uint8Array); // a copy, as a Request's
    return { url: url.href, method: upper, headers, redirect: init?.redirect ?? 'follow', signal: init?.signal ?? undefined, body: bytes };
  }
  const request = new Request(input, init);
  const bytes = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
  return { url: request.url, method: request.method, headers: new Headers(request.headers), redirect: request.redirect, signal: request.signal, body: bytes };
}

async function follow(request: Outbound, all: Required<FetchLimits>, signal: AbortSignal): Promise<Response> {
  const timedOut = () => new OutboundFetchError('timeout', `No complete answer from ${new URL(request.url).origin} within ${all.timeoutMs} ms`);
  const { body, headers } = request;
  // A length, not chunks: signed requests may cover Content-Length.
  if (body && !headers.has('content-length')) headers.set('content-length', String(body.length));
  const maxRedirects = request.redirect === 'error' ? 0 : all.maxRedirects;
  let hop: Hop = { url: new URL(request.url), method: request.method, headers, body };
  for (let redirects = 0; ; redirects++) {
    const { url } = hop;
    if (url.protocol === 'https:' && httpsAsHttp()) url.protocol = 'http:'; // LOCAL_FETCH_HTTPS_AS_HTTP (local runs)
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new OutboundFetchError('unsupported_url', `Only http and https URLs are fetched, not ${url.protocol}`);
    const range = isIpLiteral(url.hostname) ? blockedRange(url.hostname) : undefined;
    if (range && !all.allowPrivate) throw new OutboundFetchError('private_address', `${url.hostname} is a ${range} address`);
    let answer: Awaited<ReturnType<typeof exchange>>;
    try {
      answer = await exchange(hop, all, signal);
    } catch (e) {
      if (signal.aborted && !request.signal?.aborted) throw timedOut();
      throw e;
    }
    const { res } = answer;
    const status = res.statusCode ?? 0;
    const location = res.headers.location;
    if (REDIRECTS.has(status) && location && request.redirect !== 'manual') {
      if (redirects >= maxRedirects)
        throw new OutboundFetchError(
          'too_many_redirects',
          maxRedirects ? `More than ${maxRedirects} redirects from ${request.url}` : `${url.origin} answered a redirect`,
        );
      const next = new URL(location, url);
      const carried = new Headers(hop.headers);
      if (next.origin !== url.origin) for (const name of CREDENTIALS) carried.delete(name);
      // As fetch does: 303, and 301 or 302 after a POST, continue as a GET without the body.
      const asGet = status === 303 || ((status === 301 || status === 302) && hop.method === 'POST');
      if (asGet) for (const name of ['content-type', 'content-length', 'content-digest']) carried.delete(name);
      hop = { url: next, method: asGet ? 'GET' : hop.method, headers: carried, body: asGet ? undefined : hop.body };
      continue;
    }
    const answered = new Headers();
    for (let i = 0; i < res.rawHeaders.length; i += 2) answered.append(res.rawHeaders[i], res.rawHeaders[i + 1]);
    // (statusOnly: nobody reads the body, which was dropped; no stream is made for it.)
    const empty = NO_BODY.has(status) || all.statusOnly;
    const response = new Response(empty ? null : new Uint8Array(answer.body), { status, statusText: res.statusMessage, headers: answered });
    Object.defineProperty(response, 'url', { value: url.href });
    return response;
  }
}

// Runs `fn` with every fetch it makes through globalThis.fetch bounded: for libraries that call
// fetch themselves and take none of ours (the Open Payments client, through ky). Other code keeps
// the plain fetch, even while `fn` runs.
const scope = new AsyncLocalStorage<FetchLimits>();
let plain: typeof fetch | undefined;

export function withBoundedFetch<T>(limits: FetchLimits, fn: () => Promise<T>): Promise<T> {
  if (!plain) {
    const original = globalThis.fetch;
    plain = original;
    globalThis.fetch = ((input: string | URL | Request, init?: RequestInit) => {
      const bounded = scope.getStore();
      return bounded ? boundedFetch(input, init, bounded) : original(input, init);
    }) as typeof fetch;
  }
  return scope.run(limits, fn);
}
