import { describe, expect, expectTypeOf, it } from 'vitest';
import { account, insufficient, isInsufficient } from '../../lib/ledger';
import type { Refusal, Refusals, Write } from '../../lib/platform/tx';

// Refusals are a closed set, each declared once by the domain whose writes carry it (RefusalsOf,
// lib/platform/tx.ts): a misspelt one, at a write or where a caller reads one, does not compile.
// `npm run typecheck` checks the lines marked @ts-expect-error (were one of them to compile, tsc
// would fail on the mark); the assertions below run too, on what the types allow.
describe('refusals', () => {
  it('are the ones the domains declare, and no other string', () => {
    expectTypeOf<'quote_taken' | 'peer_exists' | 'wallet_address_inactive' | 'changed'>().toExtend<Refusal>();
    expectTypeOf(insufficient(account.liquidity('a'))).toExtend<Refusal>();
    expectTypeOf<string>().not.toExtend<Refusal>();
    expectTypeOf<'quote_tkaen'>().not.toExtend<Refusal>();
  });

  it('refuse a misspelt refusal where a caller reads one', () => {
    const refusals: Refusals = ['quote_taken', insufficient(account.liquidity('a'))];
    expect(refusals.includes('quote_taken')).toBe(true);
    expect(refusals.includes(insufficient(account.liquidity('a')))).toBe(true);
    // @ts-expect-error: no write refuses with 'quote_tkaen'
    expect(refusals.includes('quote_tkaen')).toBe(false);
    // @ts-expect-error: the ledger's parameterised refusal names an account (`insufficient:<kind>:<id>`)
    expect(refusals.includes('insufficient:liquidty:a')).toBe(false);
    expect(refusals.filter(isInsufficient)).toEqual(['insufficient:liquidity:a']);
  });

  it('refuse a misspelt refusal at a write, and an account id of no kind', () => {
    const check = { TableName: 't', Key: { pk: 'p', sk: 's' }, ConditionExpression: 'attribute_exists(pk)' };
    const write: Write = { refusal: 'peer_exists', ConditionCheck: check };
    // @ts-expect-error: 'peer_exist' is no peer's refusal
    const misspelt: Write = { refusal: 'peer_exist', ConditionCheck: check };
    expect([write, misspelt].map((w) => w.refusal)).toEqual(['peer_exists', 'peer_exist']);
    // @ts-expect-error: 'liquidty' is no kind of account
    expect(insufficient('liquidty:a')).toBe('insufficient:liquidty:a');
  });
});
