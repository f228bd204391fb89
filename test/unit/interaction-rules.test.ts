import { describe, expect, it } from 'vitest';
import {
  continueRule,
  decideRule,
  finishRule,
  type InteractionFacts,
  idpState,
  interactionHash,
  startRule,
  withQuery,
} from '../../lib/auth-server/interaction-rules';

// The interactive grant's state machine (lib/auth-server/interaction-rules.ts), without storage.
const NOW = 1_800_000_000_000;
const grant = (over: Partial<InteractionFacts> = {}): InteractionFacts => ({
  state: 'pending',
  ixStep: 'created',
  ixExpiresAt: NOW + 60_000,
  lastContinuedAt: NOW - 60_000,
  finish: { uri: 'https://app.example/return', nonce: 'n' },
  ...over,
});

describe('starting an interaction', () => {
  it('starts, and starts again, while nothing is decided and the interaction lives', () => {
    expect(startRule(grant(), NOW)).toBe('start');
    expect(startRule(grant({ ixStep: 'started' }), NOW)).toBe('start');
  });
  it('refuses once decided, finished or expired; a grant without interaction or revoked is unknown', () => {
    for (const ixStep of ['accepted', 'rejected', 'finished'] as const) expect(startRule(grant({ ixStep }), NOW), ixStep).toBe('decided');
    expect(startRule(grant({ state: 'consented', ixStep: 'finished' }), NOW)).toBe('decided');
    expect(startRule(grant({ ixExpiresAt: NOW }), NOW)).toBe('expired');
    expect(startRule(grant({ ixStep: undefined, state: 'approved' }), NOW)).toBe('unknown');
    expect(startRule(grant({ state: 'revoked' }), NOW)).toBe('unknown');
  });
});

describe("the IdP's decision", () => {
  it('is taken once, after the start, before expiry', () => {
    expect(decideRule(grant({ ixStep: 'started' }), NOW)).toBe('decide');
    expect(decideRule(grant({ ixStep: 'created' }), NOW)).toBe('not_started');
    expect(decideRule(grant({ ixStep: 'accepted' }), NOW)).toBe('decided');
    expect(decideRule(grant({ ixStep: 'finished', state: 'consented' }), NOW)).toBe('decided');
    expect(decideRule(grant({ ixStep: 'started', ixExpiresAt: NOW - 1 }), NOW)).toBe('expired');
  });
  it('says the user denied a rejected or revoked grant, and knows no grant without interaction', () => {
    expect(decideRule(grant({ ixStep: 'rejected' }), NOW)).toBe('user_denied');
    expect(decideRule(grant({ ixStep: 'finished', state: 'rejected' }), NOW)).toBe('user_denied');
    expect(decideRule(grant({ ixStep: 'started', state: 'revoked' }), NOW)).toBe('user_denied');
    expect(decideRule(grant({ ixStep: undefined, state: 'approved' }), NOW)).toBe('unknown');
  });
});

describe('finishing', () => {
  it('sends the browser that started last back with the decision, once', () => {
    expect(finishRule(grant({ ixStep: 'accepted' }), NOW, true)).toBe('accepted');
    expect(finishRule(grant({ ixStep: 'rejected' }), NOW, true)).toBe('rejected');
    expect(finishRule(grant({ ixStep: 'started' }), NOW, true)).toBe('pending');
    expect(finishRule(grant({ ixStep: 'finished', state: 'consented' }), NOW, true)).toBe('replay');
    expect(finishRule(grant({ ixStep: 'finished', state: 'approved' }), NOW, true)).toBe('replay');
  });
  it('refuses another browser, an expired interaction, a revoked grant', () => {
    expect(finishRule(grant({ ixStep: 'accepted' }), NOW, false)).toBe('bad_session');
    expect(finishRule(grant({ ixStep: 'finished', state: 'consented' }), NOW, false)).toBe('bad_session');
    expect(finishRule(grant({ ixStep: 'accepted', ixExpiresAt: NOW }), NOW, true)).toBe('expired');
    expect(finishRule(grant({ ixStep: 'accepted', state: 'revoked' }), NOW, true)).toBe('revoked');
    expect(finishRule(grant({ ixStep: undefined, state: 'approved' }), NOW, true)).toBe('unknown');
  });
});

describe("the IdP's view of the state", () => {
  it('maps steps and states to PENDING, APPROVED, DENIED', () => {
    expect(idpState(grant())).toBe('PENDING');
    expect(idpState(grant({ ixStep: 'started' }))).toBe('PENDING');
    expect(idpState(grant({ ixStep: 'accepted' }))).toBe('APPROVED');
    expect(idpState(grant({ ixStep: 'finished', state: 'consented' }))).toBe('APPROVED');
    expect(idpState(grant({ ixStep: 'finished', state: 'approved' }))).toBe('APPROVED');
    expect(idpState(grant({ ixStep: 'rejected' }))).toBe('DENIED');
    expect(idpState(grant({ ixStep: 'finished', state: 'rejected' }))).toBe('DENIED');
  });
});

describe('continuing', () => {
  const consented = (over: Partial<InteractionFacts> = {}) => grant({ state: 'consented', ixStep: 'finished', continueBy: NOW + 60_000, ...over });
  it('issues for the matching reference, once, while it is fresh', () => {
    expect(continueRule(consented(), { ref: true, matches: true }, NOW, 5)).toBe('issue');
    expect(continueRule(consented(), { ref: true, matches: false }, NOW, 5)).toBe('wrong_ref');
    expect(continueRule(consented({ continueBy: NOW }), { ref: true, matches: true }, NOW, 5)).toBe('denied');
    expect(continueRule(consented({ state: 'approved' }), { ref: true, matches: false }, NOW, 5)).toBe('denied');
    expect(continueRule(grant({ ixStep: 'accepted' }), { ref: true, matches: false }, NOW, 5)).toBe('denied');
    expect(continueRule(grant({ state: 'rejected', ixStep: 'finished' }), { ref: true, matches: false }, NOW, 5)).toBe('denied');
  });
  it('answers a poll while pending, no sooner than wait seconds apart, and refuses it once expired', () => {
    expect(continueRule(grant(), { ref: false }, NOW, 5)).toBe('poll');
    expect(continueRule(grant({ lastContinuedAt: NOW - 4_999 }), { ref: false }, NOW, 5)).toBe('too_fast');
    expect(continueRule(grant({ lastContinuedAt: NOW - 5_000 }), { ref: false }, NOW, 5)).toBe('poll');
    expect(continueRule(grant({ ixExpiresAt: NOW }), { ref: false }, NOW, 5)).toBe('denied');
  });
  it('issues on a poll only for a grant without a finish URI; one with a redirect needs its reference', () => {
    expect(continueRule(consented({ finish: undefined }), { ref: false }, NOW, 5)).toBe('issue');
    expect(continueRule(consented(), { ref: false }, NOW, 5)).toBe('present_ref');
    expect(continueRule(grant({ state: 'rejected', ixStep: 'finished' }), { ref: false }, NOW, 5)).toBe('denied');
    expect(continueRule(grant({ state: 'approved', ixStep: undefined }), { ref: false }, NOW, 5)).toBe('not_interactive');
  });
});

describe('the finish hash', () => {
  it("is SHA-256 in standard base64 with padding, over RFC 9635's example (whose text shows the base64url form of the same digest)", () => {
    const hash = interactionHash('VJLO6A4CATR0KRO', 'MBDOFXG4Y5CVJCX821LH', '4IFWWIKYB2PQ6U56NL1', 'https://server.example.com/tx');
    expect(hash).toBe('x+gguKWTj8rQf7d7i3w3UhzvuJ5bpOlKyAlVpLxBffY=');
    expect(Buffer.from(hash, 'base64').toString('base64url')).toBe('x-gguKWTj8rQf7d7i3w3UhzvuJ5bpOlKyAlVpLxBffY');
  });
  it('changes with each input, and with a trailing slash on the endpoint', () => {
    const base = interactionHash('a', 'b', 'c', 'https://auth.example');
    expect(interactionHash('a', 'b', 'c', 'https://auth.example/')).not.toBe(base);
    expect(interactionHash('a', 'b', 'd', 'https://auth.example')).not.toBe(base);
  });
  it('goes into a query percent-encoded, keeping the query the URI had', () => {
    expect(withQuery('https://app.example/cb?order=1', { hash: 'x+g/=' })).toBe('https://app.example/cb?order=1&hash=x%2Bg%2F%3D');
  });
});
