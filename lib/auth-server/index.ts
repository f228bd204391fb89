import { randomBytes, randomUUID } from 'node:crypto';
import type { JWK } from '@interledger/http-signature-utils';
import { clientDisplayName, clientKey } from '../open-payments/client-keys';
import { openPaymentsErrors } from '../open-payments/errors';
import { event } from '../platform/events';
import { logger } from '../platform/log';
import type { Page } from '../platform/store';
import { commit } from '../platform/tx';
import { commonErrors } from '../shared/errors';
import type { Node } from '../shared/node';
import { intentUrl, isResourceId } from '../shared/resources';
import { canonicalBase, canonicalOrUndefined, isUnderBase, sameAddress } from '../shared/wallet-address-url';
import { findWalletAddressByUrl, walletAddressUrlOf } from '../wallet-addresses';
import type { Grant, GrantsQuery } from './admin-schemas';
import { authErrors } from './errors';
import { continueRule, withQuery } from './interaction-rules';
import { grantPolicy } from './policy';
import type { AccessItem, ClientIdentity, ContinueRequest, GrantRequest, Introspection, IntrospectionRequest } from './schemas';
import * as store from './store';

export { grantLookup } from './store';

// The Open Payments authorization server (GNAP, RFC 9635, as Open Payments profiles it). A client
// names itself by its wallet address (its keys at <wallet address>/jwks.json) or gives its key,
// and signs every request with it (RFC 9421). Each access item is judged by one rule (./policy.ts):
// what acts only on what the client creates, and what a payer reads, is issued at once; what
// reaches further (outgoing payments, list-all) needs the consent of one wallet address's owner.
// Such a grant is answered with the interaction and continuation parts GNAP requires and stays
// pending while the user consents on the FSP's page (./interaction.ts, IDP_CONSENT_URL; without
// it, interaction is not offered and it cannot be approved); the client then continues the grant
// with the interact_ref its finish URI received (or, without a finish URI, by polling) and gets the
// token.
// Access tokens expire after ACCESS_TOKEN_EXPIRY_SECS and are managed at their `manage` URL
// (rotate, revoke); the grant is revoked at its continuation URL. The resource server asks about
// a token by introspection. A grant holds its one token (./store.ts), and a token's value names its
// grant (`<grant id>.<256 random bits>`), so that introspection is one read, and revocation, which
// ends the grant's state or current token, wins every race with a rotation.
const newToken = () => randomBytes(32).toString('base64url');
const url = (node: Node, path: string) => `${node.urls.authServer}${path}`;

// A request's proof that its client holds a key: given how to find a key by its id, whether the
// request was signed with it, and why not. The adapter checks the HTTP message signature
// (lib/api/http/message-signatures.ts); which key is the client's is this domain's to say.
export type KeyProof = (findKey: (keyId: string) => Promise<JWK | undefined>) => Promise<{ ok: true } | { ok: false; reason: string }>;

// Checks the request's proof against the key of `client`.
async function authenticate(node: Node, client: ClientIdentity, proof: KeyProof): Promise<void> {
  const findKey = async (keyId: string): Promise<JWK | undefined> =>
    'jwk' in client ? (client.jwk.kid === keyId ? (client.jwk as JWK) : undefined) : clientKey(node, client.walletAddress, keyId);
  const verified = await proof(findKey);
  if (!verified.ok) throw openPaymentsErrors.invalidClient(verified.reason);
}

const identityOf = (client: GrantRequest['client']): ClientIdentity => (typeof client === 'string' ? { walletAddress: client } : client);

// A new access token of grant `grantId`: its value (given to the client once) and what the grant keeps.
function newAccessToken(node: Node, grantId: string) {
  const value = `${grantId}.${newToken()}`;
  const token: store.GrantToken = { hash: store.hashOf(value), managementId: randomUUID(), expiresAt: Date.now() + node.accessTokenExpirySecs * 1000 };
  return { value, token };
}

const tokenView = (node: Node, value: string, t: store.GrantToken, access: AccessItem[]) => ({
  value,
  manage: url(node, `/token/${t.managementId}`),
  expires_in: node.accessTokenExpirySecs,
  access,
});

// The grant a token value names, if the token is the one it holds now (approved, not revoked).
// (Its expiry is the caller's to check: an expired token can still be rotated.)
async function grantHolding(node: Node, value: string): Promise<(store.GrantRecord & { token: store.GrantToken }) | undefined> {
  const grantId = value.slice(0, value.indexOf('.'));
  if (!isResourceId(grantId)) return undefined;
  const grant = await store.findGrant(node, grantId);
  if (grant?.state !== 'approved' || !grant.token || !store.sameHash(store.hashOf(value), grant.token.hash)) return undefined;
  return grant as store.GrantRecord & { token: store.GrantToken };
}

// A client may ask for GRANT_REQUESTS_PER_MINUTE grants a minute (counted once its signature is
// checked, so that nobody can spend another client's allowance); more are 429 until the minute ends.
async function countRequest(node: Node, client: ClientIdentity) {
  const now = Date.now();
  const minute = now - (now % 60_000);
  const who = 'jwk' in client ? `jwk:${client.jwk.x}` : canonicalBase(client.walletAddress);
  if ((await commit(node, [store.countGrantRequest(node, who, minute, node.grantRequestsPerMinute)])).length)
    throw authErrors.tooManyGrantRequests(
      `This client asked for ${node.grantRequestsPerMinute} grants this minute, as many as it may; reuse a token (rotate it at its manage URL) rather than ask again`,
      Math.ceil((minute + 60_000 - now) / 1000),
    );
}

export async function requestGrant(node: Node, body: GrantRequest, proof: KeyProof) {
  const client = identityOf(body.client);
  await authenticate(node, client, proof);
  await countRequest(node, client);
  if (body.subject !== undefined) throw commonErrors.invalidRequest('Subject information is not offered by this authorization server');
  if (!body.access_token) throw commonErrors.invalidRequest('The request must ask for access_token');
  const access = body.access_token.access;
  const decision = grantPolicy(access, { payments: intentUrl(node, ''), walletAddresses: node.urls.walletAddresses });
  if (decision.outcome === 'refuse') throw commonErrors.invalidRequest(decision.detail);
  const wallets = walletAddressesNamed(node, access);
  await refuseInactive(node, wallets);
  const continueToken = newToken();
  const grant: store.GrantRecord = {
    id: randomUUID(),
    state: 'approved',
    access,
    client,
    continueTokenHash: store.hashOf(continueToken),
    createdAt: new Date().toISOString(),
    ...(wallets.length && { walletAddress: wallets[0] }), // an interactive grant's names one alone
  };
  const continuation = { access_token: { value: continueToken }, uri: url(node, `/continue/${grant.id}`) };

  if (decision.outcome === 'interact') {
    if ('jwk' in client) throw authErrors.clientRefused('A client that gives its key instead of a wallet address can only ask for non-interactive grants');
    if (!body.interact)
      throw commonErrors.invalidRequest(
        `This grant needs the consent of ${decision.walletAddress}'s owner: the request must include interact (start: ["redirect"])`,
      );
    const clientName = await clientDisplayName(node, client.walletAddress);
    if (!clientName)
      throw authErrors.clientRefused("The client's wallet address could not be read, or publishes no publicName: the consent page shows the user who asks");
    const nonce = newToken();
    const now = Date.now();
    const finish = body.interact.finish && { uri: body.interact.finish.uri, nonce: body.interact.finish.nonce };
    await commit(node, [
      store.putGrant(node, {
        ...grant,
        state: 'pending',
        ixStep: 'created',
        ixNonceHash: store.hashOf(nonce),
        ixExpiresAt: now + node.interactionExpirySecs * 1000,
        lastContinuedAt: now,
        clientName,
        clientUri: client.walletAddress,
        ...(finish && { finish }),
      }),
    ]);
    logger.info('Grant pending interaction', { grantId: grant.id, client });
    // The query is Rafiki's (its IdP interface names it); the consent page is given the stored values.
    const redirect = withQuery(url(node, `/interact/${grant.id}/${nonce}`), { clientName, clientUri: client.walletAddress });
    return { interact: { redirect, finish: nonce }, continue: { ...continuation, wait: node.gnapWaitSecs } };
  }

  const issued = newAccessToken(node, grant.id);
  await commit(node, [store.putGrant(node, { ...grant, token: issued.token })]);
  logger.info('Grant issued', { grantId: grant.id, client, access: access.map((a) => `${a.type}:${a.actions.join('+')}`) });
  return { access_token: tokenView(node, issued.value, issued.token, access), continue: continuation };
}

// The wallet addresses of this node that access items name (canonical, each once): an incoming
// payment named by its URL is not one.
function walletAddressesNamed(node: Node, access: AccessItem[]): string[] {
  const payments = intentUrl(node, '');
  const named = access.flatMap((a) =>
    a.identifier && !isUnderBase(a.identifier, payments) ? [canonicalOrUndefined(a.identifier, node.urls.walletAddresses)] : [],
  );
  return [...new Set(named.filter((w) => w !== undefined))];
}

// No grant, nor a token after consent, for a wallet address the FSP froze: each one the grant names
// is read afresh (a freeze takes effect at once).
async function refuseInactive(node: Node, named: string[]): Promise<void> {
  const wallets = await Promise.all(named.map((address) => findWalletAddressByUrl(node, address)));
  const inactive = wallets.find((w) => w?.status === 'inactive');
  if (inactive) throw authErrors.walletAddressInactive(inactive.address);
}

// The grant at a continuation URL, if the GNAP token given is its continuation token.
async function continuable(node: Node, id: string, continueToken: string | undefined): Promise<store.GrantRecord> {
  const grant = await store.findGrant(node, id);
  if (!grant || grant.state === 'revoked' || !continueToken || !store.sameHash(store.hashOf(continueToken), grant.continueTokenHash)) {
    throw authErrors.invalidContinuation();
  }
  return grant;
}

// Continuing a grant (GNAP section 5): with the interact_ref the client's finish URI received, the
// access token, once; without one, a poll: still pending (come back after `wait`), or, for a grant
// without a finish URI that the user accepted, the token.
export async function continueGrant(node: Node, id: string, continueToken: string | undefined, proof: KeyProof, body: ContinueRequest) {
  const grant = await continuable(node, id, continueToken);
  await authenticate(node, grant.client, proof);
  if (grant.state === 'pending' && !node.urls.consent)
    throw authErrors.requestDenied(
      "This grant needs the end user's consent, which this authorization server cannot obtain (interaction is not offered: IDP_CONSENT_URL is unset); cancel it with DELETE on its continuation URL",
    );
  const now = Date.now();
  const ref = body?.interact_ref;
  const matches = ref !== undefined && grant.ixRefHash !== undefined && store.sameHash(store.hashOf(ref), grant.ixRefHash);
  const continuation = { access_token: { value: continueToken! }, uri: url(node, `/continue/${id}`) }; // checked by continuable
  switch (continueRule(grant, ref === undefined ? { ref: false } : { ref: true, matches }, now, node.gnapWaitSecs)) {
    case 'not_interactive':
      throw commonErrors.invalidRequest('This grant was issued without interaction and has nothing to continue; rotate its access token at its manage URL');
    case 'wrong_ref':
      throw authErrors.wrongInteractRef();
    case 'present_ref':
      throw commonErrors.invalidRequest("The end user has finished: continue with the interact_ref the grant's finish URI received");
    case 'too_fast':
      throw authErrors.tooFast(node.gnapWaitSecs);
    case 'denied':
      throw authErrors.requestDenied(deniedDetail(grant, now));
    case 'poll': {
      const refused = await commit(node, [store.pollGrant(node, id, node.gnapWaitSecs * 1000, now)]);
      if (refused.length) throw authErrors.tooFast(node.gnapWaitSecs); // another poll got there first
      return { continue: { ...continuation, wait: node.gnapWaitSecs } };
    }
    case 'issue': {
      // A freeze after the request (or the consent) stops the token too; the grant stays as it
      // was, so it can be continued once the address is active again, in the time it has to be continued.
      await refuseInactive(node, walletAddressesNamed(node, grant.access));
      const issued = newAccessToken(node, grant.id);
      const refused = await commit(node, [store.approveInteractive(node, id, ref === undefined ? undefined : store.hashOf(ref), issued.token, now)]);
      if (refused.length) throw authErrors.requestDenied('The grant changed meanwhile: its token was issued already, or it was revoked');
      logger.info('Grant issued after consent', { grantId: id, client: grant.client });
      return { access_token: tokenView(node, issued.value, issued.token, grant.access), continue: continuation };
    }
  }
}

function deniedDetail(g: store.GrantRecord, now: number): string {
  if (g.state === 'rejected') return 'The end user rejected this grant';
  if (g.state === 'approved') return "This grant's access token was issued already; an interact_ref is good once";
  if (g.state === 'revoked') return 'This grant was revoked';
  if ((g.ixExpiresAt ?? 0) <= now || (g.continueBy ?? 0) <= now) return 'The interaction expired; request a new grant';
  return 'The end user has not consented to this grant (yet): send them to interact.redirect, then continue with the interact_ref';
}

// Revokes the grant whatever it holds now: a rotation or a consent that committed first loses its
// token with it, one that commits after is refused (./store.ts revokeGrant).
export async function cancelGrant(node: Node, id: string, continueToken: string | undefined, proof: KeyProof): Promise<void> {
  const grant = await continuable(node, id, continueToken);
  await authenticate(node, grant.client, proof);
  if ((await commit(node, [store.revokeGrant(node, id)])).length) throw authErrors.invalidContinuation(': it was revoked meanwhile');
  logger.info('Grant revoked', { grantId: id });
}

// The grant whose token is managed at /token/{managementId}, if the GNAP token given is that token.
async function managed(node: Node, managementId: string, value: string | undefined, proof: KeyProof) {
  const grant = value ? await grantHolding(node, value) : undefined;
  if (!grant || grant.token.managementId !== managementId) throw authErrors.invalidToken();
  await authenticate(node, grant.client, proof);
  return grant;
}

// A new value and a new manage URL for the same access; the old token stops working. Only while
// the grant still holds the old one: a revocation that committed first wins.
export async function rotateToken(node: Node, managementId: string, value: string | undefined, proof: KeyProof) {
  const grant = await managed(node, managementId, value, proof);
  const next = newAccessToken(node, grant.id);
  if ((await commit(node, [store.rotateToken(node, grant.id, grant.token.hash, next.token)])).length) throw authErrors.invalidRotation();
  return { access_token: tokenView(node, next.value, next.token, grant.access) };
}

// Revokes the token, if its grant still holds it. If a rotation got there first, its successor is
// live and this revocation did nothing: it is not answered as done (401), so that no success is
// ever followed by a live token. A concurrent revocation or the grant's did the same: done.
export async function revokeAccessToken(node: Node, managementId: string, value: string | undefined, proof: KeyProof): Promise<void> {
  const grant = await managed(node, managementId, value, proof);
  if (!(await commit(node, [store.revokeToken(node, grant.id, grant.token.hash)])).length) return;
  const now = await store.findGrant(node, grant.id);
  if (now?.state === 'approved' && now.token) throw authErrors.invalidToken('The token was rotated meanwhile: revoke its successor, or the grant');
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

// One read: the grant the token names, which must be approved, hold this token, and the token not
// have expired. A token of a revoked (or rejected, or never approved) grant is never active.
export async function introspect(node: Node, req: IntrospectionRequest): Promise<Introspection> {
  const grant = await grantHolding(node, req.access_token);
  if (!grant || grant.token.expiresAt <= Date.now()) return { active: false };
  const access = req.access ? grant.access.filter((granted) => req.access!.some((asked) => covers(granted, asked))) : grant.access;
  return { active: true, grant: grant.id, access, client: grant.client };
}

// GNAP discovery (RFC 9635 section 9; Rafiki serves it at /discovery): where grants are asked for,
// and how a client proves its key; with IDP_CONSENT_URL, how the user interacts (redirect, and
// back by redirect: RFC 9635's member name and Rafiki's both).
export function discovery(node: Node) {
  const modes = node.urls.consent && {
    interaction_start_modes_supported: ['redirect'],
    interaction_finish_methods_supported: ['redirect'],
    interaction_finish_modes_supported: ['redirect'],
  };
  return { grant_request_endpoint: node.urls.authServer, ...modes, key_proofs_supported: ['httpsig'] };
}

// The FSP's view of a grant (never its tokens).
const grantView = (g: store.GrantRecord): Grant => ({
  id: g.id,
  state: g.state,
  client: g.client,
  walletAddress: g.walletAddress ?? null,
  access: g.access,
  createdAt: g.createdAt,
});

// The grants of this node's users, newest first: for one wallet address (by id or URL; one that is
// not there has none), one client (its wallet address), one state.
export async function listGrants(node: Node, q: GrantsQuery): Promise<Page<Grant>> {
  const walletAddress = q.walletAddress === undefined ? undefined : await walletAddressUrlOf(node, q.walletAddress, 'walletAddress');
  if (walletAddress === null) return { items: [], nextCursor: null };
  const filters = { walletAddress, clientUrl: q.client && canonicalBase(q.client), state: q.state };
  const page = await store.listGrants(node, { limit: q.limit, cursor: q.cursor, ...filters });
  return { items: page.items.map(grantView), nextCursor: page.nextCursor };
}

// One grant of this node's users, as the FSP sees it.
export async function getGrant(node: Node, id: string): Promise<Grant> {
  const grant = await store.findGrant(node, id);
  if (!grant) throw authErrors.grantNotFound(id);
  return grantView(grant);
}

// The FSP revokes a grant (as its client can at its continuation URL, by the same write): its token
// goes with it, so introspection refuses it at the resource server's next request. Revoking one
// revoked or rejected answers it as it is; a grant.revoked event tells of each revocation.
export async function revokeGrantByFsp(node: Node, id: string): Promise<Grant> {
  const grant = await store.findGrant(node, id);
  if (!grant) throw authErrors.grantNotFound(id);
  if (grant.state === 'revoked' || grant.state === 'rejected') return grantView(grant);
  const revoked = grantView({ ...grant, state: 'revoked' });
  const refusals = await commit(node, [store.revokeGrant(node, id)], [event(store.grantPartition(node, id), 'grant.revoked', revoked)]);
  if (refusals.length) return revokeGrantByFsp(node, id); // revoked meanwhile: answered as it is now
  logger.info('Grant revoked by the FSP', { grantId: id });
  return revoked;
}
