import { randomBytes, randomUUID } from 'node:crypto';
import type { JWK } from '@interledger/http-signature-utils';
import { DomainError } from '../errors';
import { type SignedRequest, verifySignature } from '../http/message-signatures';
import { logger } from '../log';
import type { Node } from '../node';
import { clientKey } from '../open-payments/client-keys';
import { intentUrl } from '../resources';
import { commit } from '../tx';
import { sameAddress } from '../wallet-addresses/address';
import { grantPolicy } from './policy';
import type { AccessItem, ClientIdentity, GrantRequest, Introspection, IntrospectionRequest } from './schemas';
import * as store from './store';

// The Open Payments authorization server (GNAP, RFC 9635, as Open Payments profiles it). A client
// names itself by its wallet address (its keys at <wallet address>/jwks.json) or gives its key,
// and signs every request with it (RFC 9421). Grants that act only on what the client creates are
// issued at once; what reaches further needs the wallet owner's consent (./policy.ts). Grants for
// outgoing payments are answered with the interaction and continuation parts GNAP requires, stay
// pending, and cannot be approved yet (the interaction URL and continuing say so); read-all and
// list-all are refused until interaction exists.
// Access tokens expire after ACCESS_TOKEN_EXPIRY_SECS and are managed at their `manage` URL
// (rotate, revoke); the grant is revoked at its continuation URL. The resource server asks about
// a token by introspection.
const WAIT_SECS = 5;
const newToken = () => randomBytes(32).toString('base64url');
const url = (node: Node, path: string) => `${node.urls.authServer}${path}`;

const invalidClient = (detail: string) => new DomainError('unauthorized', 'invalid_client', detail);
const invalidRequest = (detail: string) => new DomainError('invalid', 'invalid_request', detail);

// Checks the request's signature against the key of `client`.
async function authenticate(node: Node, client: ClientIdentity, request: SignedRequest): Promise<void> {
  const findKey = async (keyId: string): Promise<JWK | undefined> =>
    'jwk' in client ? (client.jwk.kid === keyId ? (client.jwk as JWK) : undefined) : clientKey(node, client.walletAddress, keyId);
  const verified = await verifySignature(request, findKey);
  if (!verified.ok) throw invalidClient(verified.reason);
}

const identityOf = (client: GrantRequest['client']): ClientIdentity => (typeof client === 'string' ? { walletAddress: client } : client);

function tokenRecord(node: Node, grantId: string, access: AccessItem[], client: ClientIdentity) {
  const value = newToken();
  const record: store.TokenRecord = {
    hash: store.hashOf(value),
    grantId,
    managementId: randomUUID(),
    access,
    client,
    expiresAt: Date.now() + node.accessTokenExpirySecs * 1000,
    revoked: false,
  };
  return { value, record };
}

const tokenView = (node: Node, value: string, t: store.TokenRecord) => ({
  value,
  manage: url(node, `/token/${t.managementId}`),
  expires_in: node.accessTokenExpirySecs,
  access: t.access,
});

export async function requestGrant(node: Node, body: GrantRequest, request: SignedRequest) {
  const client = identityOf(body.client);
  await authenticate(node, client, request);
  if (body.subject !== undefined) throw invalidRequest('Subject information is not offered by this authorization server');
  if (!body.access_token) throw invalidRequest('The request must ask for access_token');
  const access = body.access_token.access;
  const continueToken = newToken();
  const grant: store.GrantRecord = {
    id: randomUUID(),
    state: 'approved',
    access,
    client,
    continueTokenHash: store.hashOf(continueToken),
    createdAt: new Date().toISOString(),
  };
  const continuation = { access_token: { value: continueToken }, uri: url(node, `/continue/${grant.id}`) };

  const decision = grantPolicy(access, intentUrl(node, ''));
  if (decision.outcome === 'refuse') throw invalidRequest(decision.detail);
  if (decision.outcome === 'interact') {
    if ('jwk' in client)
      throw new DomainError('invalid', 'invalid_client', 'A client that gives its key instead of a wallet address can only ask for non-interactive grants');
    if (!body.interact)
      throw invalidRequest('An outgoing-payment grant needs the end user\'s consent: the request must include interact (start: ["redirect"])');
    const nonce = newToken();
    await commit(node, [store.putGrant(node, { ...grant, state: 'pending', ...(body.interact.finish && { finish: body.interact.finish }) })]);
    logger.info('Grant pending interaction', { grantId: grant.id, client });
    return { interact: { redirect: url(node, `/interact/${grant.id}/${nonce}`), finish: nonce }, continue: { ...continuation, wait: WAIT_SECS } };
  }

  const token = tokenRecord(node, grant.id, access, client);
  await commit(node, [store.putGrant(node, { ...grant, tokenHash: token.record.hash }), store.putToken(node, token.record)]);
  logger.info('Grant issued', { grantId: grant.id, client, access: access.map((a) => `${a.type}:${a.actions.join('+')}`) });
  return { access_token: tokenView(node, token.value, token.record), continue: continuation };
}

// The grant at a continuation URL, if the GNAP token given is its continuation token.
async function continuable(node: Node, id: string, continueToken: string | undefined): Promise<store.GrantRecord> {
  const grant = await store.findGrant(node, id);
  if (!grant || grant.state === 'revoked' || !continueToken || store.hashOf(continueToken) !== grant.continueTokenHash) {
    throw new DomainError('unauthorized', 'invalid_continuation', 'No grant to continue at this URL with this continuation token');
  }
  return grant;
}

export async function continueGrant(node: Node, id: string, continueToken: string | undefined, request: SignedRequest) {
  const grant = await continuable(node, id, continueToken);
  await authenticate(node, grant.client, request);
  if (grant.state === 'pending') {
    throw new DomainError(
      'unauthorized',
      'request_denied',
      "This grant needs the end user's consent, which this authorization server cannot obtain yet (interaction is not offered); cancel it with DELETE on its continuation URL",
    );
  }
  throw new DomainError(
    'invalid',
    'invalid_request',
    'This grant was issued without interaction and has nothing to continue; rotate its access token at its manage URL',
  );
}

export async function cancelGrant(node: Node, id: string, continueToken: string | undefined, request: SignedRequest): Promise<void> {
  const grant = await continuable(node, id, continueToken);
  await authenticate(node, grant.client, request);
  // The grant and the token it holds, together (the token may have been revoked on its own).
  const items = [store.revokeGrant(node, grant), ...(grant.tokenHash ? [store.revokeToken(node, grant.tokenHash, false)] : [])];
  if ((await commit(node, items)).length)
    throw new DomainError('unauthorized', 'invalid_continuation', 'The grant changed meanwhile; it may be revoked already');
  logger.info('Grant revoked', { grantId: id });
}

// The token managed at /token/{managementId}, if the GNAP token given is that token.
async function managed(node: Node, managementId: string, value: string | undefined, request: SignedRequest): Promise<store.TokenRecord> {
  const token = value ? await store.findToken(node, value) : undefined;
  if (!token || token.revoked || token.managementId !== managementId) {
    throw new DomainError('unauthorized', 'invalid_token', 'No access token to manage at this URL with this token');
  }
  await authenticate(node, token.client, request);
  return token;
}

// A new value and a new manage URL for the same access; the old token stops working.
export async function rotateToken(node: Node, managementId: string, value: string | undefined, request: SignedRequest) {
  const old = await managed(node, managementId, value, request);
  const next = tokenRecord(node, old.grantId, old.access, old.client);
  const failed = await commit(node, [
    store.revokeToken(node, old.hash),
    store.putToken(node, next.record),
    store.replaceGrantToken(node, old.grantId, old.hash, next.record.hash),
  ]);
  if (failed.length) throw new DomainError('invalid', 'invalid_rotation', 'The token was revoked or rotated meanwhile');
  return { access_token: tokenView(node, next.value, next.record) };
}

export async function revokeAccessToken(node: Node, managementId: string, value: string | undefined, request: SignedRequest): Promise<void> {
  const token = await managed(node, managementId, value, request);
  await commit(node, [store.revokeToken(node, token.hash)]); // a concurrent revocation did the same
}

// Whether a grant item covers a requested one: same type; every action, where read-all covers
// read and list-all covers list; and the same identifier where both name one (however spelled:
// the specification's own examples end a wallet address with a slash).
function covers(granted: AccessItem, asked: NonNullable<IntrospectionRequest['access']>[number]): boolean {
  if (granted.type !== asked.type) return false;
  if (granted.identifier && asked.identifier && !sameAddress(granted.identifier, asked.identifier)) return false;
  const actions: string[] = granted.actions;
  return asked.actions.every((a) => actions.includes(a) || (a === 'read' && actions.includes('read-all')) || (a === 'list' && actions.includes('list-all')));
}

export async function introspect(node: Node, req: IntrospectionRequest): Promise<Introspection> {
  const token = await store.findToken(node, req.access_token);
  if (!token || token.revoked || token.expiresAt <= Date.now()) return { active: false };
  const access = req.access ? token.access.filter((granted) => req.access!.some((asked) => covers(granted, asked))) : token.access;
  return { active: true, grant: token.grantId, access, client: token.client };
}

// Where an end user would give consent to an outgoing-payment grant: not offered yet.
// GNAP discovery (RFC 9635 section 9; Rafiki serves it at /discovery): where grants are asked for,
// and how a client proves its key. No interaction mode is listed while none is offered.
export function discovery(node: Node) {
  return { grant_request_endpoint: node.urls.authServer, key_proofs_supported: ['httpsig'] };
}

export async function interactionNotOffered(): Promise<never> {
  throw new DomainError(
    'not_implemented',
    'interaction_not_offered',
    'This authorization server cannot ask the end user for consent yet, so outgoing-payment grants cannot be approved',
  );
}
