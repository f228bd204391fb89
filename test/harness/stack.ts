import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { type Stack, type StackOptions, startStack } from '../../infra/local/start/stack';
import { type AdminReply, adminClient as signedAdminClient } from '../../infra/local/tools/admin-client';
import { fileEmulators } from './emulators';

// A whole local stack for one test file, on the file's emulators, with a signed Admin client.
export type Reply = AdminReply;

export interface TestStack extends Stack {
  admin(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
  send(method: string, path: string, init?: { body?: string; headers?: Record<string, string> }): Promise<Reply>;
  // Without `t`, a fresh one: two equal requests signed at once still get different signatures.
  sign(method: string, path: string, body?: string, t?: number | string, idempotencyKey?: string, tenantId?: string): string;
}

// The signed Admin API of a node at `adminUrl`, as an FSP client calls it, in the tests' terms.
export function adminClient(adminUrl: string, secret: string): Pick<TestStack, 'admin' | 'send' | 'sign'> {
  const client = signedAdminClient(adminUrl, secret);
  return {
    admin: (method, path, body, headers) => client.request(method, path, { body, headers }),
    send: client.send,
    sign: (method, path, body = '', t, idempotencyKey, tenantId) => client.sign({ method, pathWithQuery: path, body, idempotencyKey, tenantId }, t),
  };
}

// A tenant's signed Admin API: its secret, and its id in the tenant-id header.
export function tenantAdmin(adminUrl: string, id: string, secret: string): TestStack['admin'] {
  const client = adminClient(adminUrl, secret);
  return (method, path, body, headers) => client.admin(method, path, body, { 'tenant-id': id, ...headers });
}

// Between reads of an idle DynamoDB stream, for the stacks of the tests: a function's write wakes
// the outbox relay at once whatever this is, so only what a test writes itself waits for it, and
// Lambda's 250 ms cost a test file and its DynamoDB Local about 5% of a core while its stack was
// idle (infra/local/start/stack.ts, streamIdleMs).
export const STREAM_IDLE_MS = 1000;

// `emulators`: other than the file's (a test that measures, on emulators of its own).
export async function startTestStack(
  settings: Record<string, string> = {},
  options: Pick<StackOptions, 'envFile' | 'traces' | 'emulators' | 'preload' | 'ports'> = {},
): Promise<TestStack> {
  const stack = await startStack({
    emulators: options.emulators ?? (await fileEmulators()),
    ...options,
    prefix: `t${randomBytes(4).toString('hex')}-`,
    streamIdleMs: STREAM_IDLE_MS,
    operatorsKey: inject('operatorsKey'),
    // The stand-in for WAF's grant rate rule is grant-rate-limit.test.ts's to test; here it is far
    // above what a test file sends, so that no test of the auth server trips on it.
    settings: { ADMIN_API_SECRET: 'test-secret-0123456789abcdef', GRANT_RATE_LIMIT_PER_5MIN: '1000000', ...settings },
  });
  return Object.assign(stack, adminClient(stack.adminUrl, stack.env.ADMIN_API_SECRET));
}
