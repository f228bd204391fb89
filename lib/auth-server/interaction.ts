import { randomBytes } from 'node:crypto';
import { logger } from '../platform/log';
import { acceptedSecrets } from '../platform/secrets';
import { commit } from '../platform/tx';
import { commonErrors, type DomainError } from '../shared/errors';
import type { Node } from '../shared/node';
import { isResourceId } from '../shared/resources';
import { authErrors } from './errors';
import { decideRule, finishRule, idpState, interactionHash, startRule, withQuery } from './interaction-rules';
import * as store from './store';

// The interaction of an interactive grant, through Rafiki's Identity Provider interface
// (packages/auth/src/openapi/specs/id-provider.yaml in interledger/rafiki), so that an FSP's
// consent page built for Rafiki works unchanged:
// - front channel, the user's browser: GET /interact/{id}/{nonce} sends it to the consent page
//   (IDP_CONSENT_URL) with a session cookie; GET /interact/{id}/{nonce}/finish sends it back to
//   the client's finish URI, with `hash` and `interact_ref`, or `result=grant_rejected`;
// - back channel, the consent page (x-idp-secret): GET /grant/{id}/{nonce} (what is asked),
//   POST /grant/{id}/{nonce}/{accept|reject} (the user's choice).
// The interaction's id is the grant's; the nonce is the server's, 256 random bits, kept hashed. A
// wrong nonce is an unknown interaction. See docs/open-payments.md, "Interactive grants".
const SESSION_COOKIE = 'gnap_session';
const NONCE = /^[A-Za-z0-9_-]{1,128}$/;

// A front-channel answer: the browser is sent on (with the session cookie from the start), or,
// for a client without a finish URI, the interaction simply ends (202; the client polls).
export type FrontChannel = { status: 302; location: string; cookie?: string } | { status: 202 };

const random = () => randomBytes(32).toString('base64url');

async function interactionAt(node: Node, id: string, nonce: string): Promise<store.GrantRecord | undefined> {
  if (!isResourceId(id) || !NONCE.test(nonce)) return undefined;
  const g = await store.findGrant(node, id);
  if (!g?.ixStep || !g.ixNonceHash || !store.sameHash(store.hashOf(nonce), g.ixNonceHash)) return undefined;
  return g;
}

// The consent page proves itself with the IdP secret (compared as digests: equal lengths, constant
// time), any of its values to accept during a rotation.
async function checkIdpSecret(node: Node, given: string | undefined, refuse: (detail: string) => DomainError): Promise<void> {
  const accepted = await acceptedSecrets(node, 'IDP_SECRET');
  const hash = given && store.hashOf(given);
  if (!hash || !accepted.some((expected) => store.sameHash(hash, store.hashOf(expected)))) throw refuse('Missing or wrong x-idp-secret');
}

// The client's finish URI with `params`, if it gave one.
const back = (g: store.GrantRecord, params: Record<string, string>): FrontChannel | undefined =>
  g.finish && { status: 302, location: withQuery(g.finish.uri, params) };
const backOr = (g: store.GrantRecord, params: Record<string, string>, error: DomainError): FrontChannel => {
  const reply = back(g, params);
  if (!reply) throw error;
  return reply;
};

// Scoped to this interaction's URLs: cookies ignore ports, and two nodes on localhost share them.
function sessionCookie(node: Node, id: string, value: string, ttlMs: number): string {
  const base = new URL(node.urls.authServer);
  const path = `${base.pathname.replace(/\/+$/, '')}/interact/${id}`;
  const secure = base.protocol === 'https:' ? '; Secure' : '';
  return `${SESSION_COOKIE}=${value}; Path=${path}; Max-Age=${Math.max(1, Math.ceil(ttlMs / 1000))}; HttpOnly; SameSite=Lax${secure}`;
}

const sessionOf = (cookieHeader: string | undefined) =>
  cookieHeader
    ?.split(';')
    .map((c) => c.trim())
    .find((c) => c.startsWith(`${SESSION_COOKIE}=`))
    ?.slice(SESSION_COOKIE.length + 1);

export async function startInteraction(node: Node, id: string, nonce: string): Promise<FrontChannel> {
  const consent = node.urls.consent;
  if (!consent) throw authErrors.interactionNotOffered();
  const g = await interactionAt(node, id, nonce);
  const now = Date.now();
  const rule = g ? startRule(g, now) : 'unknown';
  if (!g || rule === 'unknown') throw authErrors.unknownInteractionStart();
  if (rule === 'start') {
    const session = random();
    const refused = await commit(node, [store.startInteraction(node, id, store.hashOf(session), now)]);
    if (!refused.length) {
      const location = withQuery(consent, { interactId: id, nonce, clientName: g.clientName ?? '', clientUri: g.clientUri ?? '' });
      return { status: 302, location, cookie: sessionCookie(node, id, session, g.ixExpiresAt! - now) };
    }
  }
  if (rule === 'expired')
    return backOr(
      g,
      { result: 'invalid_interaction', message: 'interaction expired' },
      authErrors.interactionForbidden('This interaction cannot start: interaction expired'),
    );
  // Decided, finished, or taken meanwhile by a request that decided it (the step's condition holds
  // the same time): the start URL has done its work, and sends the browser nowhere again.
  throw authErrors.interactionForbidden('This interaction was decided already: its start URL works until the decision, not after');
}

// What the consent page shows: the access asked for, the state, and (beyond Rafiki's answer) the
// client as its wallet address published it, so that the page need not trust its own query.
export async function grantForIdp(node: Node, id: string, nonce: string, idpSecret: string | undefined) {
  await checkIdpSecret(node, idpSecret, authErrors.unauthenticated);
  const g = await interactionAt(node, id, nonce);
  if (!g || g.state === 'revoked') throw authErrors.unknownInteraction();
  return { grantId: g.id, access: g.access, state: idpState(g), client: { name: g.clientName, uri: g.clientUri } };
}

export async function decideInteraction(node: Node, id: string, nonce: string, choice: string, idpSecret: string | undefined): Promise<void> {
  await checkIdpSecret(node, idpSecret, authErrors.interactionUnauthorized);
  if (choice !== 'accept' && choice !== 'reject') throw commonErrors.invalidRequest('The choice is accept or reject');
  const g = await interactionAt(node, id, nonce);
  if (!g) throw authErrors.unknownInteraction();
  const now = Date.now();
  switch (decideRule(g, now)) {
    case 'unknown':
      throw authErrors.unknownInteraction();
    case 'user_denied':
      throw authErrors.userDenied();
    case 'not_started':
      throw authErrors.interactionInvalid("The user's browser has not come through this interaction's start URL");
    case 'expired':
      throw authErrors.interactionInvalid('The interaction expired');
    case 'decided':
      throw authErrors.interactionInvalid('This interaction was decided already');
  }
  const refused = await commit(node, [store.decideInteraction(node, id, choice === 'accept' ? 'accepted' : 'rejected', now)]);
  if (refused.length) throw authErrors.interactionInvalid('This interaction was decided meanwhile');
  logger.info('Interaction decided', { grantId: id, choice, client: g.clientUri });
}

export async function finishInteraction(node: Node, id: string, nonce: string, cookieHeader: string | undefined): Promise<FrontChannel> {
  const g = await interactionAt(node, id, nonce);
  if (!g) throw authErrors.unknownInteraction();
  const session = sessionOf(cookieHeader);
  const sessionHash = session ? store.hashOf(session) : '';
  const sameSession = !!session && !!g.ixSessionHash && store.sameHash(sessionHash, g.ixSessionHash);
  const now = Date.now();
  const replay = () =>
    backOr(g, { result: 'invalid_interaction', message: 'invalid interaction' }, authErrors.interactionUnauthorized('This interaction was finished already'));
  switch (finishRule(g, now, sameSession)) {
    case 'unknown':
      throw authErrors.unknownInteraction();
    case 'bad_session':
      throw authErrors.unauthenticated('This browser did not start this interaction (no session cookie, or another one)');
    case 'revoked':
      return backOr(g, { result: 'unknown_interaction', message: 'unknown interaction' }, authErrors.unknownInteraction());
    case 'replay':
      return replay();
    case 'expired':
      return backOr(g, { result: 'invalid_interaction', message: 'interaction expired' }, authErrors.interactionUnauthorized('The interaction expired'));
    case 'pending':
      return backOr(g, { result: 'grant_invalid' }, authErrors.interactionUnauthorized('The user has not decided yet'));
    case 'rejected': {
      if ((await commit(node, [store.finishInteraction(node, id, { accepted: false, sessionHash }, now)])).length) return replay();
      logger.info('Interaction finished: rejected', { grantId: id });
      return back(g, { result: 'grant_rejected' }) ?? { status: 202 };
    }
    case 'accepted': {
      const ref = random();
      const finished = { accepted: true, sessionHash, refHash: store.hashOf(ref), continueBy: now + node.interactionExpirySecs * 1000 };
      if ((await commit(node, [store.finishInteraction(node, id, finished, now)])).length) return replay();
      logger.info('Interaction finished: accepted', { grantId: id });
      if (!g.finish) return { status: 202 };
      return back(g, { hash: interactionHash(g.finish.nonce, nonce, ref, node.urls.authServer), interact_ref: ref })!;
    }
  }
}
