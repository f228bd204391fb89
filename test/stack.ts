import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { type Stack, type StackOptions, startStack } from '../infra/local/stack';
import { signatureHeader } from '../lib/http/signature';

// A whole local stack for one test file, on the suite's emulators, with a signed Admin client.
export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export interface TestStack extends Stack {
  admin(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  send(method: string, path: string, init?: { body?: string; headers?: Record<string, string> }): Promise<Reply>;
  sign(method: string, path: string, body?: string, t?: number | string, idempotencyKey?: string): string;
  freshSign(method: string, path: string, body?: string, idempotencyKey?: string): Promise<string>;
}

async function reply(res: Response): Promise<Reply> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, body };
}

// The signed Admin API of a node at `adminUrl`, as an FSP client calls it.
const idempotencyKeyOf = (headers: Record<string, string>) => Object.entries(headers).find(([name]) => name.toLowerCase() === 'idempotency-key')?.[1];

export function adminClient(adminUrl: string, secret: string): Pick<TestStack, 'admin' | 'send' | 'sign' | 'freshSign'> {
  const sign = (method: string, path: string, body = '', t?: number | string, idempotencyKey?: string) =>
    signatureHeader(secret, { method, pathWithQuery: path, body, idempotencyKey }, t);
  // Like a careful FSP client: two identical non-GET requests in one millisecond would share a
  // signature, which the service refuses as a replay, so wait for the next millisecond instead.
  const used = new Set<string>();
  const freshSign = async (method: string, path: string, body = '', idempotencyKey?: string) => {
    for (;;) {
      const header = sign(method, path, body, undefined, idempotencyKey);
      if (method === 'GET' || !used.has(header)) {
        used.add(header);
        return header;
      }
      await new Promise((r) => setTimeout(r, 1));
    }
  };
  const send: TestStack['send'] = async (method, path, init = {}) => reply(await fetch(adminUrl + path, { method, headers: init.headers, body: init.body }));
  const admin: TestStack['admin'] = async (method, path, body, headers = {}) => {
    const raw = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
    return send(method, path, {
      body: raw || undefined,
      headers: { ...(raw && { 'content-type': 'application/json' }), signature: await freshSign(method, path, raw, idempotencyKeyOf(headers)), ...headers },
    });
  };
  return { admin, send, sign, freshSign };
}

export async function startTestStack(settings: Record<string, string> = {}, options: Pick<StackOptions, 'envFile'> = {}): Promise<TestStack> {
  const stack = await startStack({
    ...options,
    emulators: inject('emulators'),
    prefix: `t${randomBytes(4).toString('hex')}-`,
    settings: { ADMIN_API_SECRET: 'test-secret-0123456789abcdef', ...settings },
  });
  return Object.assign(stack, adminClient(stack.adminUrl, stack.env.ADMIN_API_SECRET));
}
