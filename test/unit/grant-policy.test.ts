import { describe, expect, it } from 'vitest';
import { grantPolicy } from '../../lib/auth-server/policy';
import type { AccessItem } from '../../lib/auth-server/schemas';

// What the authorization server issues at once, with the wallet owner's consent, or not at all
// (lib/auth-server/policy.ts).
const URLS = { payments: 'https://op.example/incoming-payments/', walletAddresses: 'https://op.example' };
const PAYMENT = `${URLS.payments}3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c`;
const DAVE = 'https://op.example/dave';
const incoming = (actions: string[], identifier?: string) => ({ type: 'incoming-payment', actions, ...(identifier && { identifier }) }) as AccessItem;
const quote = (actions: string[], identifier?: string) => ({ type: 'quote', actions, ...(identifier && { identifier }) }) as AccessItem;
const outgoing = (identifier = DAVE, actions = ['create']) => ({ type: 'outgoing-payment', actions, identifier }) as AccessItem;
const decide = (...access: AccessItem[]) => grantPolicy(access, URLS).outcome;

describe('grantPolicy', () => {
  it('issues at once what acts only on what the client creates, with or without an identifier', () => {
    expect(decide(incoming(['create', 'read', 'list', 'complete'], 'https://op.example/bob'))).toBe('issue');
    expect(decide(incoming(['create', 'read', 'complete']))).toBe('issue');
    expect(decide(quote(['create', 'read']))).toBe('issue');
  });

  it("issues the grants Rafiki's remote incoming payment service asks for at once: read-all, alone, with create, with complete", () => {
    expect(decide(incoming(['read-all']))).toBe('issue');
    expect(decide(incoming(['create', 'read-all']))).toBe('issue');
    expect(decide(incoming(['read-all', 'complete']))).toBe('issue');
    expect(decide(incoming(['read-all'], 'https://op.example/bob'))).toBe('issue');
  });

  it('needs consent for what reaches all of a wallet address (list-all, quote read-all, outgoing payments), for the wallet address it names', () => {
    expect(grantPolicy([incoming(['list-all'], DAVE)], URLS)).toEqual({ outcome: 'interact', walletAddress: DAVE });
    expect(decide(quote(['read-all'], DAVE))).toBe('interact');
    expect(decide(outgoing())).toBe('interact');
    expect(decide(outgoing(DAVE, ['read-all', 'list-all']))).toBe('interact');
  });

  it('refuses an item needing consent that names no wallet address, naming the item', () => {
    expect(grantPolicy([incoming(['create']), incoming(['read-all', 'list-all'])], URLS)).toEqual({
      outcome: 'refuse',
      detail: expect.stringMatching(/^access_token\.access\[1\] \(incoming-payment read-all, list-all\): .*identifier/),
    });
    expect(decide(quote(['read-all']))).toBe('refuse');
  });

  // Issue 28: one outgoing-payment item on dave sent the whole request to consent, unjudged, and the
  // token read Bob's incoming payments (metadata, STREAM secret), listed Bob's and Carol's, and read
  // another app's quote; the consent page showed only dave.
  it('judges every item of an interactive request by its own rule: the reproduced request is refused', () => {
    const reproduced = [outgoing(), incoming(['read-all', 'list-all']), quote(['read-all'])];
    expect(grantPolicy(reproduced, URLS)).toMatchObject({ outcome: 'refuse', detail: expect.stringContaining('access_token.access[1]') });
    expect(grantPolicy([outgoing(), quote(['read-all'])], URLS)).toMatchObject({
      outcome: 'refuse',
      detail: expect.stringContaining('access_token.access[1]'),
    });
    expect(decide(outgoing(), incoming(['complete'], PAYMENT))).toBe('refuse');
  });

  it("asks one wallet address's owner: every item of an interactive request that names a wallet address names the same one, of this node", () => {
    expect(decide(outgoing(), incoming(['list-all'], 'https://op.example/DAVE/'), quote(['create']), incoming(['read-all']))).toBe('interact');
    expect(grantPolicy([outgoing(), incoming(['list-all'], 'https://op.example/bob')], URLS)).toMatchObject({
      outcome: 'refuse',
      detail: expect.stringContaining('one wallet address, https://op.example/dave'),
    });
    expect(decide(outgoing(), incoming(['create'], 'https://op.example/bob'))).toBe('refuse');
    expect(decide(outgoing(), incoming(['read'], PAYMENT))).toBe('refuse'); // a payment is no wallet address: a grant of its own
    expect(grantPolicy([outgoing('https://elsewhere.example/dave')], URLS)).toMatchObject({
      outcome: 'refuse',
      detail: expect.stringContaining('not a wallet address of this node'),
    });
  });

  it('issues read of one incoming payment named by its URL, however spelled, and nothing else on such an identifier', () => {
    expect(decide(incoming(['read'], PAYMENT))).toBe('issue');
    for (const actions of [['complete'], ['read', 'create'], ['read-all'], ['list']]) {
      expect(decide(incoming(actions, PAYMENT)), actions.join()).toBe('refuse');
      // Issue 28: an upper-case URL was taken for a wallet address, and read, complete and list were issued on it.
      expect(decide(incoming(actions, PAYMENT.toUpperCase())), `${actions} upper-case`).toBe('refuse');
      expect(decide(incoming(actions, `${PAYMENT}/`)), `${actions} slash`).toBe('refuse');
    }
    expect(decide(incoming(['read'], PAYMENT.toUpperCase()))).toBe('issue');
  });
});
