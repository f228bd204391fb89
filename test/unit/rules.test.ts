import { describe, expect, it } from 'vitest';
import { account, ownerOf } from '../../lib/ledger';
import {
  accountOfItem,
  conditionFor,
  debitFrom,
  insufficient,
  itemsOf,
  limitOf,
  MAX_BALANCE,
  needsBalances,
  netChanges,
  SHARDS,
  spreadOver,
  TOO_LARGE,
} from '../../lib/ledger/rules';
import { mayEnd, stateAfter } from '../../lib/liquidity-withdrawals/rules';
import { afterCredit, creditEntry, isOpen, isShort, parseCredit, stateOf, storedAs } from '../../lib/payment-intents/credit';
import { type IntentRecord, intentStates } from '../../lib/payment-intents/schemas';
import { actionsFrom, mayWithdraw, neverFundable, quoteExpired, TRANSITIONS } from '../../lib/payments/states';
import { bestRoute, tokenChanges } from '../../lib/peers/rules';

// The domain rules that are pure: what the stores write as conditions, and what the services
// decide, tested without the emulator.

describe('the payment state machine', () => {
  it('funds or cancels from funding, completes or fails from sending, and ends there', () => {
    expect(actionsFrom('funding').sort()).toEqual(['cancel', 'fund']);
    expect(actionsFrom('sending').sort()).toEqual(['complete', 'fail']);
    for (const end of ['completed', 'failed', 'cancelled'] as const) expect(actionsFrom(end)).toEqual([]);
    expect(TRANSITIONS.fund).toEqual({ from: 'funding', to: 'sending' });
  });

  it('lets an account be withdrawn only once nothing is left to send from it', () => {
    expect(mayWithdraw('funding')).toBe(false);
    expect(mayWithdraw('sending')).toBe(false);
    expect(['completed', 'failed', 'cancelled'].every((s) => mayWithdraw(s as never))).toBe(true);
  });

  it('funds only while the quote is valid; one left in funding after that never can be, and is cancelled', () => {
    const quoteExpiresAt = '2026-01-01T00:05:00.000Z';
    expect(quoteExpired({ quoteExpiresAt }, '2026-01-01T00:04:59.999Z')).toBe(false);
    expect(quoteExpired({ quoteExpiresAt }, quoteExpiresAt)).toBe(true);
    expect(neverFundable({ state: 'funding', quoteExpiresAt }, '2026-01-01T00:04:59.999Z')).toBe(false);
    expect(neverFundable({ state: 'funding', quoteExpiresAt }, quoteExpiresAt)).toBe(true);
    // Funded in time, or ended: its quote's expiry no longer matters.
    for (const state of ['sending', 'completed', 'failed', 'cancelled'] as const) {
      expect(neverFundable({ state, quoteExpiresAt }, '2026-01-02T00:00:00.000Z')).toBe(false);
    }
  });
});

describe('the payment intent state machine', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  const intent = (over: Partial<IntentRecord> = {}): IntentRecord =>
    ({ state: 'pending', received: '0', incomingValue: '300', expiresAt: '2026-01-02T00:00:00Z', ...over }) as IntentRecord;

  it('is open while pending or processing and before its expiry; past it, it reads as expired', () => {
    expect(isOpen(intent(), now)).toBe(true);
    expect(isOpen(intent({ state: 'processing' }), now)).toBe(true);
    expect(isOpen(intent({ state: 'completed' }), now)).toBe(false);
    expect(isOpen(intent({ expiresAt: '2025-12-31T00:00:00Z' }), now)).toBe(false);
    expect(stateOf(intent({ state: 'processing', expiresAt: '2025-12-31T00:00:00Z' }), now)).toBe('expired');
    expect(stateOf(intent({ state: 'completed', expiresAt: '2025-12-31T00:00:00Z' }), now)).toBe('completed');
  });

  it('held for approval, takes nothing but still expires; cancelled, it stays cancelled', () => {
    expect(isOpen(intent({ state: 'pending_approval' }), now)).toBe(false);
    expect(stateOf(intent({ state: 'pending_approval' }), now)).toBe('pending_approval');
    expect(stateOf(intent({ state: 'pending_approval', expiresAt: '2025-12-31T00:00:00Z' }), now)).toBe('expired');
    expect(stateOf(intent({ state: 'cancelled', expiresAt: '2025-12-31T00:00:00Z' }), now)).toBe('cancelled');
  });

  it('is short when it asked for an amount and received part of it; a credit to return reads back as written', () => {
    expect(isShort(intent({ received: '100' }))).toBe(true);
    expect(isShort(intent())).toBe(false); // nothing arrived
    expect(isShort(intent({ received: '300' }))).toBe(false);
    expect(isShort(intent({ incomingValue: null, received: '100' }))).toBe(false);
    const id = '0b8d3c1e-6f1a-4e5b-9c2d-7a8b9c0d1e2f';
    expect(parseCredit(creditEntry(id, 12345678901234567890123n))).toEqual({ paymentId: id, value: 12345678901234567890123n });
  });

  it('finds by stored state and expiry exactly the intents that read as a state, for lists by state', () => {
    // Every record that can be stored: an expired one only past its expiry (the expirer records no other).
    const records = intentStates.flatMap((state) =>
      ['2025-12-31T00:00:00Z', '2026-01-02T00:00:00Z']
        .map((expiresAt) => intent({ state, expiresAt }))
        .filter((r) => r.state !== 'expired' || Date.parse(r.expiresAt) <= now),
    );
    for (const state of intentStates) {
      const { states, pastExpiry } = storedAs(state);
      const found = records.filter((r) => states.includes(r.state) && (pastExpiry === undefined || pastExpiry === Date.parse(r.expiresAt) <= now));
      expect(found, state).toEqual(records.filter((r) => stateOf(r, now) === state));
    }
  });

  it('moves to processing with a credit, and completes at its incoming amount', () => {
    expect(afterCredit(intent(), 100n, 0n, 'T')).toMatchObject({ state: 'processing', received: '100' });
    expect(afterCredit(intent({ received: '100' }), 200n, 0n, 'T')).toMatchObject({ state: 'completed', received: '300', completedAt: 'T' });
    expect(afterCredit(intent({ incomingValue: null }), 10n ** 30n, 0n, 'T')).toMatchObject({ state: 'processing' });
  });
});

describe('the ledger rules', () => {
  it('nets legs per account and leaves out accounts that net to zero', () => {
    const net = netChanges('t', [
      { debit: 'payment:p', credit: 'liquidity:a', amount: 5n },
      { debit: 'liquidity:a', credit: 'intent:i', amount: 5n },
    ]);
    expect([...net]).toEqual([
      ['payment:p', -5n],
      ['intent:i', 5n],
    ]);
  });

  it('refuses a leg that moves nothing, and a change past 38 digits', () => {
    expect(() => netChanges('t', [{ debit: 'intent:a', credit: 'intent:b', amount: 0n }])).toThrow(/positive/);
    expect(() =>
      netChanges('t', [
        { debit: 'settlement:x', credit: 'liquidity:a', amount: MAX_BALANCE },
        { debit: 'settlement:y', credit: 'liquidity:a', amount: 1n },
      ]),
    ).toThrow(/38 digits/);
  });

  it('asks a debit to be covered, except of a settlement account; every balance stays within 38 digits', () => {
    expect(conditionFor('liquidity:a', -5n)).toEqual({ atLeast: 5n, refusal: insufficient('liquidity:a') });
    expect(conditionFor('settlement:a', -5n)).toEqual({ atLeast: -MAX_BALANCE + 5n, refusal: TOO_LARGE });
    expect(conditionFor('intent:i', 5n)).toEqual({ atMost: MAX_BALANCE - 5n, refusal: TOO_LARGE });
  });
});

describe('split accounts', () => {
  it('are the settlement, liquidity and peer accounts, each its own old item and SHARDS shards, summed back by accountOfItem', () => {
    for (const id of ['settlement:a', 'liquidity:a', 'peer:p']) {
      const items = itemsOf(id);
      expect(items).toHaveLength(SHARDS + 1);
      expect(new Set(items.map(accountOfItem))).toEqual(new Set([id]));
    }
    for (const id of ['intent:i', 'payment:p', 'hold:p:a']) expect(itemsOf(id)).toEqual([id]);
    expect(needsBalances('liquidity:a', -1n)).toBe(true);
    expect(needsBalances('liquidity:a', 1n)).toBe(false); // a credit goes anywhere
    expect(needsBalances('settlement:a', -1n)).toBe(false); // it may go negative
  });

  it('take a debit from one shard that covers it, picked at random among those that do', () => {
    const balances = new Map([
      ['s0', 5n],
      ['s1', 50n],
      ['s2', 60n],
    ]);
    expect(debitFrom(balances, 10n, () => 0)).toEqual(new Map([['s1', 10n]]));
    expect(debitFrom(balances, 10n, () => 0.99)).toEqual(new Map([['s2', 10n]]));
  });

  it('take a debit no shard covers alone from the fullest first, and refuse one they cannot cover together', () => {
    const balances = new Map([
      ['s0', 5n],
      ['s1', 50n],
      ['s2', 0n],
      ['s3', 60n],
    ]);
    expect(debitFrom(balances, 115n)).toEqual(
      new Map([
        ['s3', 60n],
        ['s1', 50n],
        ['s0', 5n],
      ]),
    );
    expect(debitFrom(balances, 100n)).toEqual(
      new Map([
        ['s3', 60n],
        ['s1', 40n],
      ]),
    );
    expect(debitFrom(balances, 116n)).toBeUndefined();
  });

  it('share 38 digits between their shards, so that their sum cannot pass them', () => {
    const limits = Array.from({ length: SHARDS }, (_, k) => limitOf(`liquidity:a#${k}`));
    expect(limits.reduce((a, b) => a + b, 0n)).toBe(MAX_BALANCE);
    expect(limitOf('liquidity:a')).toBe(MAX_BALANCE); // an older version's item
    expect(limitOf('intent:i')).toBe(MAX_BALANCE);
    expect(conditionFor('liquidity:a', 5n, limits[0])).toEqual({ atMost: limits[0] - 5n, refusal: TOO_LARGE });
  });

  it('spread a deposit over every shard, exactly', () => {
    const parts = spreadOver(1001n, SHARDS);
    expect(parts).toHaveLength(SHARDS);
    expect(parts.reduce((sum, [, part]) => sum + part, 0n)).toBe(1001n);
    expect(new Set(parts.map(([, part]) => part))).toEqual(new Set([62n, 63n]));
    expect(spreadOver(3n, SHARDS)).toEqual([
      [0, 1n],
      [1, 1n],
      [2, 1n],
    ]);
  });
});

describe('a two-phase withdrawal ends once', () => {
  const expiresAt = '2026-11-27T10:00:00.000Z';
  const [before, at, after] = ['2026-11-27T09:59:59.999Z', expiresAt, '2026-11-27T10:00:00.001Z'];
  it('is posted only before its timeout, voided by the timeout only from then, voided on request while pending', () => {
    const pending = { state: 'pending' as const, expiresAt };
    expect([before, at, after].map((now) => mayEnd(pending, 'post', now))).toEqual([true, false, false]);
    expect([before, at, after].map((now) => mayEnd(pending, 'timeout', now))).toEqual([false, true, true]);
    expect([before, at, after].map((now) => mayEnd(pending, 'void', now))).toEqual([true, true, true]);
  });
  it('never ends again from posted or voided', () => {
    for (const state of ['posted', 'voided'] as const) {
      for (const ending of ['post', 'void', 'timeout'] as const) expect(mayEnd({ state, expiresAt }, ending, after)).toBe(false);
    }
    expect([stateAfter('post'), stateAfter('void'), stateAfter('timeout')]).toEqual(['posted', 'voided', 'voided']);
  });
});

describe("an account's owner, for the ledger check", () => {
  it('reads the asset or the record from every kind of account id', () => {
    const [a, b, id] = ['7d7c6a4e-0f4b-4a57-9c2e-1d4a1b7f0001', '7d7c6a4e-0f4b-4a57-9c2e-1d4a1b7f0002', '7d7c6a4e-0f4b-4a57-9c2e-1d4a1b7f0003'];
    expect(ownerOf(account.liquidity(a))).toEqual({ assetId: a });
    expect(ownerOf(account.settlement(a))).toEqual({ assetId: a });
    expect(ownerOf(account.hold(id, b))).toEqual({ assetId: b });
    expect(ownerOf(account.withdrawal(id, b))).toEqual({ assetId: b });
    expect(ownerOf(account.intent(id))).toEqual({ intent: id });
    expect(ownerOf(account.payment(id))).toEqual({ payment: id });
    expect(ownerOf(account.peer(id))).toEqual({ peer: id });
    expect(ownerOf('stray')).toBeUndefined();
  });
});

describe('peer routing', () => {
  const peer = (staticIlpAddress: string, assetCode: string, createdAt: string, routes: string[] = []) => ({ staticIlpAddress, assetCode, createdAt, routes });
  const a = peer('test.b', 'USD', '2026-01-02T00:00:00Z');
  const b = peer('test.b.sub', 'USD', '2026-01-02T00:00:00Z');
  const c = peer('test.b', 'EUR', '2026-01-01T00:00:00Z');

  it('takes the longest prefix on segment boundaries, then the asset asked for, then the oldest', () => {
    expect(bestRoute([a, b, c], 'test.b.sub.x', 'EUR')).toBe(b);
    expect(bestRoute([a, c], 'test.b.x', 'USD')).toBe(a);
    expect(bestRoute([a, c], 'test.b.x', 'GBP')).toBe(c);
    expect(bestRoute([a, b, c], 'test.bb.x')).toBeUndefined();
    expect(bestRoute([a], 'test.b')).toBe(a);
  });

  it("counts a peer's routes as its static address: the longest prefix among all of them wins", () => {
    const hub = peer('test.hub', 'USD', '2026-01-03T00:00:00Z', ['test.c', 'test.d.e']);
    const fallback = peer('test.other', 'USD', '2026-01-04T00:00:00Z', ['test']); // a default route
    expect(bestRoute([a, hub, fallback], 'test.c.carol')).toBe(hub);
    expect(bestRoute([a, hub, fallback], 'test.c')).toBe(hub);
    expect(bestRoute([a, hub, fallback], 'test.cc.carol')).toBe(fallback); // on segment boundaries
    expect(bestRoute([a, hub, fallback], 'test.d.x')).toBe(fallback);
    expect(bestRoute([a, hub, fallback], 'test.d.e.f')).toBe(hub);
    expect(bestRoute([b, hub], 'test.b.sub.x')).toBe(b);
    expect(bestRoute([hub, peer('test.c.carol', 'USD', '2026-01-05T00:00:00Z')], 'test.c.carol.x')?.staticIlpAddress).toBe('test.c.carol');
    expect(bestRoute([a, hub, fallback], 'g.elsewhere')).toBeUndefined();
  });
});

describe('peer tokens', () => {
  it('claims the tokens an update adds and releases those it drops, leaving the kept ones alone', () => {
    expect(tokenChanges(['a', 'b'], ['b', 'c'])).toEqual({ added: ['c'], dropped: ['a'] });
    expect(tokenChanges(['a'], ['a'])).toEqual({ added: [], dropped: [] });
  });
});
