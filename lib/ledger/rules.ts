import { balanceTooLarge } from '../errors';

// The ledger's rules, pure (./store.ts writes them as DynamoDB conditions). Balances are bigints
// at the fixed scale of 20; a DynamoDB number holds 38 digits, so no balance may pass that either
// way. Only settlement accounts, which stand for money outside the ledger, may go negative; every
// other debit must be covered by the balance.
export const MAX_BALANCE = 10n ** 38n - 1n;

export interface Leg {
  debit: string;
  credit: string;
  amount: bigint;
}

// What a refused transfer says: made before (the transfer id is idempotent), a debit the balance
// does not cover, or a balance that would pass 38 digits (the request is too large).
export const TRANSFER_EXISTS = 'transfer_exists';
export const insufficient = (accountId: string) => `insufficient:${accountId}`;
export const TOO_LARGE = 'too_large';

const mayGoNegative = (accountId: string) => accountId.startsWith('settlement:');

// The change of each account's balance: DynamoDB allows one operation per item in a transaction,
// so the legs are netted per account (accounts that net to zero are left out).
export function netChanges(transferId: string, legs: Leg[]): Map<string, bigint> {
  const net = new Map<string, bigint>();
  for (const leg of legs) {
    if (leg.amount <= 0n) throw new Error(`A transfer leg must move a positive amount (${transferId})`);
    net.set(leg.debit, (net.get(leg.debit) ?? 0n) - leg.amount);
    net.set(leg.credit, (net.get(leg.credit) ?? 0n) + leg.amount);
  }
  for (const [id, delta] of net) {
    if (delta === 0n) net.delete(id);
    else if (delta > MAX_BALANCE || delta < -MAX_BALANCE) throw balanceTooLarge();
  }
  return net;
}

// The condition a balance must meet before `delta` is added, and the refusal when it does not:
// a covered debit (balance >= -delta), or no passing 38 digits (balance <= MAX - delta for a
// credit, balance >= -MAX - delta for a settlement account's debit).
export type BalanceCondition = { atLeast: bigint; refusal: string } | { atMost: bigint; refusal: string };

export function conditionFor(accountId: string, delta: bigint): BalanceCondition {
  if (delta < 0n && !mayGoNegative(accountId)) return { atLeast: -delta, refusal: insufficient(accountId) };
  return delta > 0n ? { atMost: MAX_BALANCE - delta, refusal: TOO_LARGE } : { atLeast: -MAX_BALANCE - delta, refusal: TOO_LARGE };
}
