import { ledgerErrors } from './errors';

// The ledger's rules, pure (./store.ts writes them as DynamoDB conditions). Balances are bigints
// at the fixed scale of 20; a DynamoDB number holds 38 digits, so no balance may pass that either
// way. Only settlement accounts, which stand for money outside the ledger, may go negative; every
// other debit must be covered by the balance.
export const MAX_BALANCE = 10n ** 38n - 1n;

// An account's id: its kind, then whose it is (`account` in ./index.ts makes them).
export type AccountId = `${'settlement' | 'liquidity' | 'intent' | 'payment' | 'fee' | 'peer' | 'hold' | 'withdrawal'}:${string}`;

export interface Leg {
  debit: AccountId;
  credit: AccountId;
  amount: bigint;
}

// What each transfer is, kept on its record and in the history of every account it touches (GET
// /ledger/transfers): its kind, and the resource it belongs to. A closed set, from what the code
// books: a liquidity deposit or withdrawal (an asset's or a peer's; a withdrawal also takes what an
// intent received or a payment kept), a payment's funding, a local payment's delivery, and an
// Interledger packet (sent: reserved, posted or returned under the payment; received: under the
// intent it paid), and the sending fee an Interledger payment pays at its completion (a local
// payment's fees are legs of its delivery, a packet's receiving fee of the packet). A two-phase
// withdrawal's hold, post and void are withdrawals of the liquidity_withdrawal they belong to; what
// an intent closed short gives back to its local payments (INCOMING_PARTIAL_PAYMENTS=return) is a return.
export const TRANSFER_KINDS = ['deposit', 'withdrawal', 'funding', 'payment', 'packet', 'fee', 'return'] as const;
export const RESOURCE_TYPES = ['asset', 'peer', 'payment', 'payment_intent', 'liquidity_withdrawal'] as const;
export interface TransferDescription {
  kind: (typeof TRANSFER_KINDS)[number];
  resource: { type: (typeof RESOURCE_TYPES)[number]; id: string };
}

// What a refused transfer says: made before (the transfer id is idempotent), a debit the balance
// does not cover, or a balance that would pass 38 digits (the request is too large).
export const TRANSFER_EXISTS = 'transfer_exists';
export const insufficient = (accountId: AccountId) => `insufficient:${accountId}` as const;
export const TOO_LARGE = 'too_large';
export type Insufficient = ReturnType<typeof insufficient>;
declare module '../platform/tx' {
  interface RefusalsOf {
    ledger: typeof TRANSFER_EXISTS | Insufficient | typeof TOO_LARGE;
  }
}

const mayGoNegative = (accountId: string) => accountId.startsWith('settlement:');

// Accounts that every transfer of an asset or a peer touches are split over SHARDS items, so that
// no one item takes every write (DynamoDB serves an item from one partition): the asset's
// settlement account, its liquidity and its fee account, and a peer's credit line. The account's balance is the sum
// of its items. A credit goes to one shard picked at random; so does a settlement account's debit
// (it may go negative); any other debit takes from shards that hold it (debitFrom), each shard on
// condition that it covers its part, so none goes negative. The account's own item, which held
// the balance before accounts were split, still counts and is still debited; it is never credited.
export const SHARDS = 16;
const SPLIT = '(?:settlement|liquidity|fee|peer)';
const SPLIT_ACCOUNT = new RegExp(`^${SPLIT}:`);
const SHARD_ITEM = new RegExp(`^(${SPLIT}:[^#]+)#(\\d+)$`); // the account, and the shard's index
export const isSharded = (accountId: string) => SPLIT_ACCOUNT.test(accountId);
export const shardOf = (accountId: string, k: number) => `${accountId}#${k}`;
export const itemsOf = (accountId: string): string[] =>
  isSharded(accountId) ? [accountId, ...Array.from({ length: SHARDS }, (_, k) => shardOf(accountId, k))] : [accountId];
// The account an item belongs to (the inverse of shardOf).
export const accountOfItem = (itemId: string) => itemId.replace(SHARD_ITEM, '$1');
export const needsBalances = (accountId: string, delta: bigint) => isSharded(accountId) && delta < 0n && !mayGoNegative(accountId);

// `amount` in `parts` nearly equal parts (the first ones one unit more), each shard's index with
// its part; parts of nothing are left out.
export function spreadOver(amount: bigint, parts: number): [number, bigint][] {
  const n = BigInt(parts);
  return Array.from({ length: parts }, (_, k) => [k, amount / n + (BigInt(k) < amount % n ? 1n : 0n)] as [number, bigint]).filter(([, part]) => part > 0n);
}

// Which items a debit of `amount` takes from, given each item's balance: one item that covers it
// alone, picked at random among those that do (so that concurrent debits spread over the shards);
// else the largest first until covered. Undefined when all of them together fall short.
export function debitFrom(balances: Map<string, bigint>, amount: bigint, random = Math.random): Map<string, bigint> | undefined {
  const covering = [...balances].filter(([, b]) => b >= amount);
  if (covering.length) return new Map([[covering[Math.floor(random() * covering.length)][0], amount]]);
  const taken = new Map<string, bigint>();
  let left = amount;
  for (const [id, balance] of [...balances].sort((x, y) => (y[1] > x[1] ? 1 : y[1] < x[1] ? -1 : 0))) {
    if (left === 0n || balance <= 0n) break;
    // biome-ignore lint/complexity/useMathMinMax: bigints, which Math.min does not take
    const part = balance < left ? balance : left;
    taken.set(id, part);
    left -= part;
  }
  return left === 0n ? taken : undefined;
}

// The change of each account's balance: DynamoDB allows one operation per item in a transaction,
// so the legs are netted per account (accounts that net to zero are left out).
export function netChanges(transferId: string, legs: Leg[]): Map<AccountId, bigint> {
  const net = new Map<AccountId, bigint>();
  for (const leg of legs) {
    if (leg.amount <= 0n) throw new Error(`A transfer leg must move a positive amount (${transferId})`);
    net.set(leg.debit, (net.get(leg.debit) ?? 0n) - leg.amount);
    net.set(leg.credit, (net.get(leg.credit) ?? 0n) + leg.amount);
  }
  for (const [id, delta] of net) {
    if (delta === 0n) net.delete(id);
    else if (delta > MAX_BALANCE || delta < -MAX_BALANCE) throw ledgerErrors.balanceTooLarge();
  }
  return net;
}

// The condition an item's balance must meet before `delta` is added, and the refusal when it does
// not: a covered debit (balance >= -delta), or no passing the item's limit (balance <= limit -
// delta for a credit, balance >= -limit - delta for a settlement account's debit). An account's
// items share its 38 digits (limitOf), so that its balance, their sum, cannot pass them either.
type BalanceRefusal = Insufficient | typeof TOO_LARGE;
export type BalanceCondition = { atLeast: bigint; refusal: BalanceRefusal } | { atMost: bigint; refusal: BalanceRefusal };

export function conditionFor(accountId: AccountId, delta: bigint, limit = MAX_BALANCE): BalanceCondition {
  if (delta < 0n && !mayGoNegative(accountId)) return { atLeast: -delta, refusal: insufficient(accountId) };
  return delta > 0n ? { atMost: limit - delta, refusal: TOO_LARGE } : { atLeast: -limit - delta, refusal: TOO_LARGE };
}

// The most an item may hold: a shard its part of MAX_BALANCE as a deposit spreads it (spreadOver),
// so that the shards together hold no more than MAX_BALANCE; any other item all of it. (An
// account's own item, which only an older version credited, is not counted against its shards.)
const SHARD_LIMITS = spreadOver(MAX_BALANCE, SHARDS).map(([, limit]) => limit);
export function limitOf(itemId: string): bigint {
  const shard = SHARD_ITEM.exec(itemId);
  return shard ? SHARD_LIMITS[Number(shard[2])] : MAX_BALANCE;
}
