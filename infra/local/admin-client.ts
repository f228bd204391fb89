import { type SignedRequest, signatureHeader } from '../../lib/http/signature';

// The one client of the signed Admin API: the CLI, the FSP simulator, op-demo, the bench and the
// tests send through it, and the signing proxy signs with its signer. A request is signed over the
// method and the Idempotency-Key exactly as they are sent, so no key can go out unsigned.

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

export function adminSigner(secret: string) {
  const sign = (req: SignedRequest, t?: number | string) => signatureHeader(secret, req, t);
  // Two equal non-GET requests signed in one millisecond would carry one signature, which the
  // service refuses as a replay: `fresh` waits for the next millisecond instead. A signature holds
  // its `t`, so only this millisecond's need remembering.
  let at = '';
  let issued = new Set<string>();
  const fresh = async (req: SignedRequest): Promise<string> => {
    for (;;) {
      const t = (Date.now() / 1000).toFixed(3);
      if (t !== at) [at, issued] = [t, new Set()];
      const header = sign(req, t);
      if (req.method.toUpperCase() === 'GET') return header;
      if (!issued.has(header)) {
        issued.add(header);
        return header;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  return { sign, fresh };
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
    const idempotencyKey = sent.get('idempotency-key') ?? undefined;
    sent.set('signature', await signer.fresh({ method, pathWithQuery: path, idempotencyKey, body: raw }));
    return send(method, path, { body: raw || undefined, headers: sent });
  };
  return { request, send, ...signer };
}
