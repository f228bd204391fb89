import { createHash, randomUUID } from 'node:crypto';
import { isConflict } from '../platform/aws';
import type { Outgoing } from '../platform/events';
import { commit, type Refusal, type Refusals, type Write } from '../platform/tx';
import type { Node } from '../shared/node';
import { ledgerErrors } from './errors';
import { type AccountId, type Insufficient, type Leg, TOO_LARGE, TRANSFER_EXISTS, type TransferDescription } from './rules';
import * as store from './store';

// A double-entry ledger at the fixed scale of 20 (bigint units): accounts and transfers (./store.ts),
// under the rules of ./rules.ts. A transfer's writes go in the caller's transaction, together with
// whatever state change the transfer belongs to. The accounts every transfer of an asset or a peer
// touches (settlement, liquidity, a peer's credit line) are split over shards (./rules.ts): the
// ids below name the account, and the ledger picks its items.
export const account = {
  // Money outside the ledger: what the FSP pays in and out. It may go negative.
  settlement: (assetId: string) => `settlement:${assetId}` as const,
  liquidity: (assetId: string) => `liquidity:${assetId}` as const,
  intent: (intentId: string) => `intent:${intentId}` as const,
  payment: (paymentId: string) => `payment:${paymentId}` as const,
  // The fees an asset's payments paid the FSP (lib/assets rules), in that asset.
  fee: (assetId: string) => `fee:${assetId}` as const,
  // The credit line extended to a peer: what it may still send this node (never negative).
  peer: (peerId: string) => `peer:${peerId}` as const,
  // What a payment sent over Interledger has in flight, per asset: reserved before each packet
  // leaves, then posted to the peer or returned (lib/payments/methods/ilp.ts).
  hold: (paymentId: string, assetId: string) => `hold:${paymentId}:${assetId}` as const,
  // What a two-phase liquidity withdrawal holds until it is posted or voided (lib/liquidity-withdrawals).
  withdrawal: (withdrawalId: string, assetId: string) => `withdrawal:${withdrawalId}:${assetId}` as const,
};

export { type AccountId, insufficient, type Leg, RESOURCE_TYPES, TOO_LARGE, TRANSFER_EXISTS, TRANSFER_KINDS, type TransferDescription } from './rules';
export { type HistoryEntry, nonZeroBalances, transferExists, transferHistory, transferReplayRefusal } from './store';

// The writes of one transfer (its legs, what it is `about`), for the transaction of the state change
// it belongs to: its record, made once under `transferId` (TRANSFER_EXISTS after), and each account's
// change on the ledger's conditions (insufficient(account), TOO_LARGE). `read`, `spread`, `guardId`: ./store.ts.
export const transfer = (node: Node, transferId: string, about: TransferDescription, legs: Leg[], opts?: store.TransferOptions) =>
  store.transferItems(node, transferId, about, legs, opts);

// The conditions, for the transaction that closes what an account belongs to (a peer's removal),
// that the account holds nothing: refused as `refusal`, the closing domain's own.
export const holdsNothing = (node: Node, accountId: AccountId, refusal: Refusal): Write[] => store.emptyAccountCheck(node, accountId, refusal);

// Takes a transfer id for a transfer of nothing, unless a transfer holds it already: of a packet's
// credit still under way and its expiry, exactly one is on record ('voided' or 'made').
export const voidTransfer = (node: Node, transferId: string) => store.voidTransfer(node, transferId);

// Whose an account is, read from its id (the inverse of `account`): its asset's own accounts
// (and a hold's, a withdrawal's) name the asset; an intent's, a payment's and a peer's name their record, which names the asset.
export type AccountOwner = { assetId: string } | { intent: string } | { payment: string } | { peer: string };
export function ownerOf(accountId: string): AccountOwner | undefined {
  const [kind, rest] = [accountId.slice(0, accountId.indexOf(':')), accountId.slice(accountId.indexOf(':') + 1)];
  switch (kind) {
    case 'liquidity':
      return { assetId: rest };
    case 'settlement':
      return { assetId: rest };
    case 'fee':
      return { assetId: rest };
    case 'hold':
    case 'withdrawal':
      return { assetId: rest.split(':')[1] };
    case 'intent':
      return { intent: rest };
    case 'payment':
      return { payment: rest };
    case 'peer':
      return { peer: rest };
  }
  return undefined;
}

// Runs `run` with debits of split accounts on shards picked blind (no read: the common case), and
// once more with the shards read first when `cameShort` says a blind pick was refused (the shard
// held too little, though others may hold enough).
export async function blindThenRead<T>(run: (read: boolean) => Promise<T>, cameShort: (outcome: T) => boolean): Promise<T> {
  const blind = await run(false);
  return cameShort(blind) ? run(true) : blind;
}
export const isInsufficient = (refusal: Refusal): refusal is Insufficient => refusal.startsWith('insufficient:');

// The one mapping of a refused transfer's 38-digit rule to the client's error.
export function refuseTooLarge(refusals: Refusals): void {
  if (refusals.includes(TOO_LARGE)) throw ledgerErrors.balanceTooLarge();
}

export const balanceOf = async (node: Node, id: string): Promise<bigint> => (await store.balances(node, [id])).get(id) ?? 0n;

// Moves everything an account holds to its asset's settlement account (the FSP pays it out) and
// returns how much that was (a withdrawal of `resource`); zero moves nothing. A concurrent change of
// the balance is a 409 to retry.
export async function settleAll(node: Node, id: AccountId, assetId: string, resource: TransferDescription['resource']): Promise<bigint> {
  const units = await balanceOf(node, id);
  if (units === 0n) return 0n;
  const legs = [{ debit: id, credit: account.settlement(assetId), amount: units }];
  const refusals = await commit(node, await transfer(node, randomUUID(), { kind: 'withdrawal', resource }, legs));
  refuseTooLarge(refusals);
  if (refusals.length) throw ledgerErrors.concurrentWithdrawal();
  return units;
}

// Moves `units` between an account and its asset's settlement account: a deposit credits the
// account, a withdrawal takes from it (and may find too little). With an Idempotency-Key the
// transfer's id comes from it, so a retry after an unclear failure finds the transfer made and
// does not move the money again.
export async function moveFunds(
  node: Node,
  id: AccountId,
  assetId: string,
  units: bigint,
  direction: 'deposit' | 'withdrawal',
  resource: TransferDescription['resource'],
  idempotencyKey?: string,
): Promise<'moved' | 'insufficient'> {
  const [from, to] = direction === 'deposit' ? [account.settlement(assetId), id] : [id, account.settlement(assetId)];
  const transferId = idempotencyKey ? `liquidity:${createHash('sha256').update(`${id}|${direction}|${units}|${idempotencyKey}`).digest('hex')}` : randomUUID();
  const moved = await moveCovered(
    node,
    transferId,
    { kind: direction, resource },
    { debit: from, credit: to, amount: units },
    { spread: direction === 'deposit' },
  );
  return moved === 'insufficient' ? 'insufficient' : 'moved';
}

// One transfer whose debit the balance must cover, committed with `writes` and `outgoing` in one
// transaction: 'made_before' when a transfer under this id was made already (an idempotent retry).
// A debit of a split account takes from the shards it read; another debit that took from them
// meanwhile refuses it (or its transaction keeps meeting others'), so it waits a jittered while
// and reads again, for as long as the account as a whole covers the amount: 'insufficient' only
// when the balance does not cover it, so a withdrawal of everything there is succeeds. Contention
// that outlasts COVERED_ATTEMPTS is a 409 to retry, never a refusal for want of money.
const COVERED_ATTEMPTS = 12;
const COVERED_WAIT_MS = 10; // doubled each attempt, up to COVERED_MAX_WAIT_MS, of which a random part is waited
const COVERED_MAX_WAIT_MS = 320;

export async function moveCovered(
  node: Node,
  transferId: string,
  about: TransferDescription,
  leg: Leg,
  opts: { spread?: boolean; writes?: Write[]; outgoing?: Outgoing[] } = {},
): Promise<'moved' | 'made_before' | 'insufficient'> {
  for (let attempt = 1; ; attempt++) {
    const moving = await transfer(node, transferId, about, [leg], { read: true, spread: opts.spread });
    // undefined: the transaction was cancelled for conflicts, after commit's own retries
    const refusals = await commit(node, [...moving, ...(opts.writes ?? [])], opts.outgoing).catch((e) => {
      if (isConflict(e)) return undefined;
      throw e;
    });
    if (refusals?.length === 0) return 'moved';
    if (refusals?.includes(TRANSFER_EXISTS)) return 'made_before';
    if (refusals) refuseTooLarge(refusals);
    if ((await balanceOf(node, leg.debit)) < leg.amount) return 'insufficient';
    if (attempt === COVERED_ATTEMPTS) throw ledgerErrors.concurrentWithdrawal();
    await new Promise((r) => setTimeout(r, Math.random() * Math.min(COVERED_MAX_WAIT_MS, COVERED_WAIT_MS * 2 ** attempt)));
  }
}
