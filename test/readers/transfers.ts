import { expect } from 'vitest';
import type { LedgerTransfer } from '../../lib/ledger-check/schemas';

// An account's whole history (GET /ledger/transfers, every page) against its balance: it has
// transfers, newest first, each touching the account, and they sum to the balance.
export function expectHistorySumsTo(account: string, items: LedgerTransfer[], balance: bigint) {
  expect(items.length, account).toBeGreaterThan(0);
  expect(
    items.reduce((sum, t) => sum + (t.direction === 'debit' ? -BigInt(t.units) : BigInt(t.units)), 0n),
    account,
  ).toBe(balance);
  const times = items.map((t) => t.createdAt);
  expect(times, account).toEqual([...times].sort().reverse());
  for (const t of items) expect([t.debitAccount, t.creditAccount], account).toContain(account);
}
