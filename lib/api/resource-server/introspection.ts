import { fromEnv } from '@aws-sdk/credential-provider-env';
import * as z from 'zod';
import { openPaymentsErrors } from '../../open-payments/errors';
import { logger } from '../../platform/log';
import { boundedFetch } from '../../platform/net/fetch';
import { postSigner } from '../../platform/sigv4';
import type { Node } from '../../shared/node';

// The resource server asks the authorization server what a token grants: POST
// <AUTH_SERVER_URL>/introspect, an IAM-authorized route, so the request is signed with this
// function's AWS credentials (SigV4, service execute-api). The two can be deployed apart; the URL
// is the operator's setting, so it may be a private one.
const TIMEOUT_MS = 5000;

// A signer per authorization server URL (a tenant may have its own), each keeping its day's key.
const signers = new Map<string, ReturnType<typeof postSigner>>();

const accessItem = z.object({ type: z.string(), actions: z.array(z.string()), identifier: z.string().optional() }).passthrough();
const answer = z.union([
  z.object({ active: z.literal(false) }),
  z.object({
    active: z.literal(true),
    grant: z.string(),
    access: z.array(accessItem),
    client: z.union([z.object({ walletAddress: z.string() }), z.object({ jwk: z.record(z.string(), z.unknown()) })]),
  }),
]);
export type TokenInfo = z.infer<typeof answer>;
export type Asked = { type: 'incoming-payment' | 'quote' | 'outgoing-payment'; actions: string[]; identifier?: string };

export async function introspectToken(node: Node, token: string, access: Asked[]): Promise<TokenInfo> {
  const url = new URL(`${node.urls.authServer}/introspect`);
  const body = JSON.stringify({ access_token: token, access });
  if (!signers.has(url.href)) signers.set(url.href, postSigner({ service: 'execute-api', region: node.region, url, credentials: fromEnv() }));
  const headers = await signers.get(url.href)!({ 'content-type': 'application/json' }, body);
  let res: Response;
  try {
    res = await boundedFetch(url, { method: 'POST', headers, body }, { allowPrivate: true, timeoutMs: TIMEOUT_MS });
  } catch (error) {
    logger.error('Token introspection failed', { error: (error as Error).message });
    throw openPaymentsErrors.authServerUnavailable();
  }
  const parsed = answer.safeParse(await res.json().catch(() => undefined));
  if (!res.ok || !parsed.success) {
    logger.error('Token introspection answered unexpectedly', { status: res.status });
    throw openPaymentsErrors.authServerUnavailable();
  }
  return parsed.data;
}
