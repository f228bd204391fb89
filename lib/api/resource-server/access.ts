import type { JWK } from '@interledger/http-signature-utils';
import { clientKey } from '../../open-payments/client-keys';
import { openPaymentsErrors } from '../../open-payments/errors';
import type { Node } from '../../shared/node';
import { canonicalBase } from '../../shared/wallet-address-url';
import { httpErrors } from '../http/errors';
import { verifySignature } from '../http/message-signatures';
import type { OpRequest } from '../http/open-payments';
import { type Asked, introspectToken, type TokenInfo } from './introspection';

// Access to the resource server's routes: every call but a public read carries a GNAP access
// token, which the authorization server is asked about (the right type, action and wallet
// address), and is signed with the key of the client the token was granted to.
const unauthorized = (node: Node, detail: string) => httpErrors.tokenRefused(detail, node.urls.authServer);
export const forbidden = (node: Node, detail: string) => httpErrors.tokenForbids(detail, node.urls.authServer);
// Who called (the client a token was granted to, as stored on what it creates), and the access
// items of its token that cover the call.
export interface Caller {
  client: string;
  grantId: string;
  access: TokenAccess[];
}
type TokenAccess = Extract<TokenInfo, { active: true }>['access'][number];

export async function authorize(node: Node, req: OpRequest, asked: Asked[]): Promise<Caller> {
  if (!req.token) throw unauthorized(node, 'This call needs an Open Payments access token: Authorization: GNAP <token>');
  const info = await introspectToken(node, req.token, asked);
  if (!info.active) throw unauthorized(node, 'The access token is not active: unknown, expired or revoked');
  if (!info.access.length) throw forbidden(node, `The access token does not grant ${asked[0].actions[0]} on ${asked[0].type}s of ${asked[0].identifier}`);
  const client = info.client;
  const verified = await verifySignature(req.signed, async (keyId) =>
    'jwk' in client ? (client.jwk.kid === keyId ? (client.jwk as unknown as JWK) : undefined) : clientKey(node, client.walletAddress, keyId),
  );
  if (!verified.ok) throw openPaymentsErrors.invalidSignature(verified.reason);
  return {
    client: 'jwk' in client ? `jwk:${String(client.jwk.x)}` : canonicalBase(client.walletAddress),
    grantId: info.grant,
    access: info.access,
  };
}

// Whether the caller's token reaches beyond what its client created (read-all, list-all).
export const reachesAll = (caller: Caller, action: 'read' | 'list') => caller.access.some((a) => a.actions.includes(`${action}-all`));

// A resource as the caller is shown it: its `metadata` only to the client that created it, whatever
// the caller's token holds (read-all, list-all, or a payment's URL).
export function shownTo<T extends { metadata?: unknown }>(caller: Caller, createdBy: string | undefined, view: T): Omit<T, 'metadata'> | T {
  if (createdBy === caller.client) return view;
  const { metadata, ...rest } = view;
  return rest;
}
