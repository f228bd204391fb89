import { createHash } from 'node:crypto';

// The rules of an interactive grant (GNAP, RFC 9635 sections 4 and 5, as Open Payments and
// Rafiki's Identity Provider interface use them), pure: which step each request may take from the
// grant's state at a time, what the IdP is told, and the hash the client checks. The store
// (./store.ts) makes each step one conditional write with the same conditions, so that two racing
// requests cannot both take it.
//
// A grant's `state`: pending (waiting for the user) -> consented (the user accepted and came back
// to the client) -> approved (its token issued); or rejected, or revoked (the client cancelled).
// Its interaction's `ixStep`: created -> started (the user's browser reached the start URL) ->
// accepted | rejected (the IdP's call) -> finished (the browser sent back to the client).
export type GrantState = 'approved' | 'pending' | 'consented' | 'rejected' | 'revoked';
export type InteractionStep = 'created' | 'started' | 'accepted' | 'rejected' | 'finished';

export interface InteractionFacts {
  state: GrantState;
  ixStep?: InteractionStep; // none: a grant issued without interaction
  ixExpiresAt?: number; // epoch ms: the user must have decided and come back by then
  continueBy?: number; // epoch ms: the interact_ref must be presented by then
  lastContinuedAt?: number; // epoch ms: the grant's creation, then each poll
  finish?: { uri: string; nonce: string };
}

const live = (g: InteractionFacts, now: number) => g.ixExpiresAt !== undefined && g.ixExpiresAt > now;

// GET /interact/{id}/{nonce}: start (again, while nothing is decided: a link previewer that
// fetched the URL first must not lock the user out), or why not.
export type StartRule = 'start' | 'unknown' | 'expired' | 'decided';
export function startRule(g: InteractionFacts, now: number): StartRule {
  if (!g.ixStep || g.state === 'revoked') return 'unknown';
  if (g.state !== 'pending' || (g.ixStep !== 'created' && g.ixStep !== 'started')) return 'decided';
  return live(g, now) ? 'start' : 'expired';
}

// POST /grant/{id}/{nonce}/{accept|reject}: the IdP's decision, once, after the user's browser
// came through the start URL.
export type DecideRule = 'decide' | 'unknown' | 'user_denied' | 'not_started' | 'expired' | 'decided';
export function decideRule(g: InteractionFacts, now: number): DecideRule {
  if (!g.ixStep) return 'unknown';
  if (g.state === 'revoked' || g.state === 'rejected' || g.ixStep === 'rejected') return 'user_denied';
  if (g.state !== 'pending' || (g.ixStep !== 'created' && g.ixStep !== 'started')) return 'decided';
  if (!live(g, now)) return 'expired';
  return g.ixStep === 'started' ? 'decide' : 'not_started';
}

// GET /interact/{id}/{nonce}/finish: only the browser that started last (its session cookie)
// finishes, once; what it is sent back to the client with.
export type FinishRule = 'accepted' | 'rejected' | 'pending' | 'unknown' | 'bad_session' | 'revoked' | 'replay' | 'expired';
export function finishRule(g: InteractionFacts, now: number, sameSession: boolean): FinishRule {
  if (!g.ixStep) return 'unknown';
  if (!sameSession) return 'bad_session';
  if (g.state === 'revoked') return 'revoked';
  if (g.state !== 'pending' || g.ixStep === 'finished') return 'replay';
  if (!live(g, now)) return 'expired';
  return g.ixStep === 'accepted' ? 'accepted' : g.ixStep === 'rejected' ? 'rejected' : 'pending';
}

// What GET /grant/{id}/{nonce} tells the IdP (Rafiki's interaction states).
export function idpState(g: InteractionFacts): 'PENDING' | 'APPROVED' | 'DENIED' {
  if (g.state === 'rejected' || g.ixStep === 'rejected') return 'DENIED';
  if (g.state === 'consented' || g.state === 'approved' || g.ixStep === 'accepted') return 'APPROVED';
  return 'PENDING';
}

// POST /continue/{id}: with an interact_ref (`refMatches`: it is this grant's), or without (a poll).
// `issue`: the access token now; `poll`: still waiting, come back after `wait`; `too_fast`: sooner
// than that; `wrong_ref`: no such reference for this grant; `present_ref`: a grant finished with a
// redirect is continued with its reference, not by polling; `denied`: rejected, expired, or
// issued already; `not_interactive`: nothing to continue.
export type ContinueRule = 'issue' | 'poll' | 'too_fast' | 'wrong_ref' | 'present_ref' | 'denied' | 'not_interactive';
export function continueRule(g: InteractionFacts, ask: { ref: false } | { ref: true; matches: boolean }, now: number, waitSecs: number): ContinueRule {
  if (!g.ixStep) return g.state === 'approved' ? 'not_interactive' : 'denied';
  const fresh = g.continueBy !== undefined && g.continueBy > now;
  if (ask.ref) {
    if (g.state !== 'consented') return 'denied';
    if (!ask.matches) return 'wrong_ref';
    return fresh ? 'issue' : 'denied';
  }
  if (g.state === 'pending') {
    if (!live(g, now)) return 'denied';
    return now - (g.lastContinuedAt ?? 0) < waitSecs * 1000 ? 'too_fast' : 'poll';
  }
  if (g.state === 'consented') return g.finish ? 'present_ref' : fresh ? 'issue' : 'denied';
  return 'denied';
}

// The hash the client checks on its finish URI (RFC 9635 section 4.2.3, as Open Payments computes
// it): SHA-256 over the client's nonce, the server's nonce, the interaction reference and the grant
// endpoint (as wallet addresses publish it: `authServer`), one a line, no final newline; standard
// base64 with padding, as Rafiki sends it and the Open Payments documentation's verifyHash checks.
export function interactionHash(clientNonce: string, serverNonce: string, interactRef: string, grantEndpoint: string): string {
  return createHash('sha256').update(`${clientNonce}\n${serverNonce}\n${interactRef}\n${grantEndpoint}`).digest('base64');
}

// `uri` with `params` set in its query (any query it has is kept).
export function withQuery(uri: string, params: Record<string, string>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return url.href;
}
