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

async function readReply(res: Response): Promise<AdminReply> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, statusText: res.statusText, headers: res.headers, body };
}

// `path` holds the query, as it is signed. `send` sends as given, signed or not (the tests forge
// and reuse signatures with it); `request` signs.
export function adminClient(baseUrl: string, secret: string) {
  const signer = adminSigner(secret);
  const send = async (method: string, path: string, init: { body?: string; headers?: HeadersInit } = {}) =>
    readReply(await fetch(baseUrl + path, { method, headers: init.headers, body: init.body }));
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
