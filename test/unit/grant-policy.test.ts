import { describe, expect, it } from 'vitest';
import { grantPolicy } from '../../lib/auth-server/policy';
import type { AccessItem } from '../../lib/auth-server/schemas';

// What the authorization server issues without the wallet owner's consent (lib/auth-server/policy.ts).
const PREFIX = 'https://op.example/incoming-payments/';
const PAYMENT = `${PREFIX}3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c`;
const incoming = (actions: string[], identifier?: string) => ({ type: 'incoming-payment', actions, ...(identifier && { identifier }) }) as AccessItem;
const decide = (...access: AccessItem[]) => grantPolicy(access, PREFIX).outcome;

describe('grantPolicy', () => {
  it('issues at once what acts only on what the client creates, with or without an identifier', () => {
    expect(decide(incoming(['create', 'read', 'list', 'complete'], 'https://op.example/bob'))).toBe('issue');
    expect(decide(incoming(['create', 'read', 'complete']))).toBe('issue');
    expect(decide({ type: 'quote', actions: ['create', 'read'] } as AccessItem)).toBe('issue');
  });

  it('refuses read-all and list-all (they need consent, which cannot be given yet), alone or beside other items', () => {
    expect(decide(incoming(['read-all', 'list-all', 'complete']))).toBe('refuse');
    expect(decide(incoming(['read-all'], 'https://op.example/bob'))).toBe('refuse');
    expect(decide(incoming(['list-all'], 'https://op.example/bob'))).toBe('refuse');
    expect(decide({ type: 'quote', actions: ['read-all'] } as AccessItem)).toBe('refuse');
    expect(decide(incoming(['create']), incoming(['list-all'], 'https://op.example/bob'))).toBe('refuse');
    expect(grantPolicy([incoming(['read', 'read-all'])], PREFIX)).toMatchObject({ detail: expect.stringContaining('read-all') });
  });

  it('issues read of one incoming payment named by its URL, and nothing else on such an identifier', () => {
    expect(decide(incoming(['read'], PAYMENT))).toBe('issue');
    expect(decide(incoming(['complete'], PAYMENT))).toBe('refuse');
    expect(decide(incoming(['read', 'create'], PAYMENT))).toBe('refuse');
    expect(decide(incoming(['read-all'], PAYMENT))).toBe('refuse');
  });

  it('sends outgoing-payment grants to interaction', () => {
    expect(decide({ type: 'outgoing-payment', actions: ['create'], identifier: 'https://op.example/alice' } as AccessItem)).toBe('interact');
  });
});
