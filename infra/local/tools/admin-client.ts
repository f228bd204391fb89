import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { type SignedRequest, signatureHeader } from '../../../lib/api/http/signature';

// The one client of the signed Admin API: the CLI, the FSP simulator, op-demo, the bench and the
// tests send through it, and the signing proxy signs with its `sign`. A request is signed over the
// method, the Idempotency-Key and the tenant-id exactly as they are sent, so neither can go out unsigned.

export interface AdminReply {
  status: number;
  statusText: string;
  headers: Headers;
  body: any; // the parsed JSON, or the text when it is not JSON
}

export interface AdminRequest {
  body?: unknown; // a string is sent as it is, anything else as JSON
  headers?: Record<string, string>;
}

// Each signature gets a `t` of its own, strictly increasing at microsecond precision (the service
// reads up to nine decimals): two equal requests signed at once still differ, so the service never
// refuses the second as a replay of the first, and nothing waits.
export function adminSigner(secret: string) {
  let last = 0; // microseconds since the epoch
  const next = () => {
    const now = Date.now() * 1000;
    // One more than the last within the same moment; the clock itself once it has moved on, or back
    // (a test that set it, a clock step): a signature never runs ahead of the clock by more than a second.
    last = now > last || last - now > 1_000_000 ? now : last + 1;
    return `${Math.floor(last / 1e6)}.${String(last % 1e6).padStart(6, '0')}`;
  };
  const sign = (req: SignedRequest, t: number | string = next()) => signatureHeader(secret, req, t);
  return { sign };
}

// How a request goes out and its answer comes back, whole: by fetch, or by node:http, which the CLI
// takes (loading fetch was a quarter of a call's CPU).
type Answer = { status: number; statusText: string; headers: Headers; text: string };
type Transport = (url: string, init: { method: string; headers?: HeadersInit; body?: string }) => Promise<Answer>;
const viaFetch: Transport = async (url, init) => {
  const res = await fetch(url, init);
  return { status: res.status, statusText: res.statusText, headers: res.headers, text: await res.text() };
};
export const viaHttp: Transport = (url, { method, headers, body }) =>
  new Promise((ok, fail) => {
    const request = url.startsWith('https:') ? httpsRequest : httpRequest;
    const req = request(url, { method, headers: Object.fromEntries(new Headers(headers)) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', fail);
      res.on('end', () => {
        const received = new Headers();
        for (const [name, value] of Object.entries(res.headers)) for (const v of [value ?? []].flat()) received.append(name, v);
        ok({ status: res.statusCode!, statusText: res.statusMessage ?? '', headers: received, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('error', fail);
    req.end(body);
  });

function readReply({ text, ...answer }: Answer): AdminReply {
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { ...answer, body };
}

// `path` holds the query, as it is signed. `send` sends as given, signed or not (the tests forge
// and reuse signatures with it); `request` signs.
export function adminClient(baseUrl: string, secret: string, transport: Transport = viaFetch) {
  const signer = adminSigner(secret);
  const send = async (method: string, path: string, init: { body?: string; headers?: HeadersInit } = {}) =>
    readReply(await transport(baseUrl + path, { method, headers: init.headers, body: init.body }));
  const request = async (method: string, path: string, { body, headers = {} }: AdminRequest = {}) => {
    const raw = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    const sent = new Headers({ ...(raw && { 'content-type': 'application/json' }), ...headers });
    const [idempotencyKey, tenantId] = ['idempotency-key', 'tenant-id'].map((name) => sent.get(name) ?? undefined);
    sent.set('signature', signer.sign({ method, pathWithQuery: path, idempotencyKey, tenantId, body: raw }));
    return send(method, path, { body: raw || undefined, headers: sent });
  };
  // The body of an answer that succeeded; any other answer throws, naming the request and the problem.
  const ok = async (method: string, path: string, init: AdminRequest = {}) => {
    const res = await request(method, path, init);
    if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${res.body?.detail ?? JSON.stringify(res.body)}`);
    return res.body;
  };
  return { request, ok, send, ...signer };
}
