import { randomInt, randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException, TransactionConflictException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../platform/db';
import { getAll, LISTS, LISTS2, type Page, queryNewestFirst, scoped } from '../platform/store';
import { authored, heldRiderRefusalAt, type Refusal, type Write } from '../platform/tx';
import { GUARD_ID } from '../shared/audited';
import type { Node } from '../shared/node';
import {
  type AccountId,
  accountOfItem,
  conditionFor,
  debitFrom,
  isSharded,
  itemsOf,
  type Leg,
  limitOf,
  needsBalances,
  netChanges,
  SHARDS,
  shardOf,
  spreadOver,
  TOO_LARGE,
  TRANSFER_EXISTS,
  type TransferDescription,
} from './rules';

// Where the ledger lives in the main table: each account is one item with a `balance` (its id is
// its key without the prefix); each transfer one record, whose id makes it idempotent. A tenant's
// accounts are in its own key space, so its ledger check reads only them.
const accountPrefix = (node: Node) => scoped(node, 'ACCT#');
const accountKey = (node: Node, id: string) => ({ pk: `${accountPrefix(node)}${id}`, sk: 'ACCT' });
const accountIdOf = (node: Node, pk: string) => pk.slice(accountPrefix(node).length);
const transferKey = (node: Node, id: string) => ({ pk: scoped(node, `XFER#${id}`), sk: 'XFER' });
// An account's history: the legs of the transfers that touch it, newest first. A leg is one item,
// listed in its debit account's history by the Lists index and in its credit account's by Lists2,
// sorted "<createdAt>#<uuid>" (the lists' cursor): the transfer's record is its first leg's item,
// and each further leg an item beside it (LEG#<n>), written in the transfer's transaction. An
// index entry costs far less than an item (the writes' own cost, DynamoDB Local's and on AWS), so a
// one-leg transfer writes what it wrote before it was listed. A split account's history is split as
// its balance is, over SHARDS partitions (one picked at random per leg), so that no partition takes
// every payment of the asset or peer.
const historyPartitions = (node: Node, id: string) =>
  isSharded(id) ? Array.from({ length: SHARDS }, (_, k) => scoped(node, `HIST#${id}#${k}`)) : [scoped(node, `HIST#${id}`)];
const anyOf = (partitions: string[]) => partitions[randomInt(partitions.length)];

// A leg as its item keeps it, with the keys that list it under both its accounts.
const listedLeg = (node: Node, leg: Leg, createdAt: string) => ({
  debit: leg.debit,
  credit: leg.credit,
  amount: leg.amount.toString(),
  listPk: anyOf(historyPartitions(node, leg.debit)),
  list2Pk: anyOf(historyPartitions(node, leg.credit)),
  listSk: `${createdAt}#${randomUUID()}`,
});

// Conditions, for a transaction, that an account holds nothing (each of its items holds nothing
// or was never written).
export function emptyAccountCheck(node: Node, id: string, refusal: Refusal): Write[] {
  return itemsOf(id).map((item) => ({
    refusal,
    ConditionCheck: {
      TableName: node.tables.main,
      Key: accountKey(node, item),
      ConditionExpression: 'attribute_not_exists(pk) OR balance = :zero',
      ExpressionAttributeValues: { ':zero': 0n },
    },
  }));
}

// The transfer record and one update per account item it touches, each conditional on the
// ledger's rules (./rules.ts) and naming its refusal (the account's, whichever shard it hit). An
// item never written comes into being at its first credit. A debit of a split account goes to one
// shard picked blind, as a credit does (a packet's amount is far less than a shard holds), unless
// `read`: then the shards are read first, to take from those that hold it (a withdrawal; or a
// second try after a blind pick came up short, see blindThenRead). `spread`: a credit to a split
// account is divided over all its shards (a deposit), so that the debits that follow find every
// shard holding. `guardId`: transferRecord, below.
export interface TransferOptions {
  read?: boolean;
  spread?: boolean;
  guardId?: string;
}
export async function transferItems(
  node: Node,
  transferId: string,
  description: TransferDescription,
  legs: Leg[],
  opts: TransferOptions = {},
): Promise<Write[]> {
  const net = netChanges(transferId, legs);
  const planned = ([id, delta]: [string, bigint]) => opts.read === true && needsBalances(id, delta);
  const held = await itemBalances(
    node,
    [...net].filter(planned).flatMap(([id]) => itemsOf(id)),
  );
  const createdAt = new Date().toISOString();
  const writes: Write[] = [
    transferRecord(node, transferId, legs, description, createdAt, opts.guardId),
    ...legs.slice(1).map((leg, n) => furtherLeg(node, transferId, description, leg, n + 1, createdAt)),
  ];
  for (const [id, delta] of net) {
    if (!planned([id, delta])) {
      if (!isSharded(id)) writes.push(balanceChange(node, id, id, delta));
      else if (opts.spread && delta > 0n) for (const [k, part] of spreadOver(delta, SHARDS)) writes.push(balanceChange(node, id, shardOf(id, k), part));
      else writes.push(balanceChange(node, id, shardOf(id, randomInt(SHARDS)), delta));
      continue;
    }
    const balances = new Map(itemsOf(id).map((item) => [item, held.get(item) ?? 0n]));
    // Too little in all: the whole debit on the fullest item, refused unless a credit came meanwhile.
    const parts = debitFrom(balances, -delta) ?? new Map([[[...balances].reduce((x, y) => (y[1] > x[1] ? y : x))[0], -delta]]);
    for (const [item, part] of parts) writes.push(balanceChange(node, id, item, -part));
  }
  return writes;
}

// A transfer's record, written only where none is: its id makes the transfer idempotent. It is
// its first leg's item in the history. (A voided id's record has no legs and no description.)
// `guardId`: the id its signed request drew, where the transfer is named by what it is for (a
// funding's, by its payment), so that its put holds that request's replay guard (lib/platform/tx).
const transferRecord = (
  node: Node,
  transferId: string,
  legs: Leg[],
  description?: TransferDescription,
  createdAt = new Date().toISOString(),
  guardId?: string,
) => ({
  refusal: TRANSFER_EXISTS as typeof TRANSFER_EXISTS,
  Put: {
    TableName: node.tables.main,
    Item: {
      ...transferKey(node, transferId),
      transferId,
      legs: legs.map((l) => ({ debit: l.debit, credit: l.credit, amount: l.amount.toString() })),
      ...description,
      createdAt,
      ...(legs.length > 0 && listedLeg(node, legs[0], createdAt)),
      ...(guardId && { [GUARD_ID]: guardId }),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

// A transfer's leg after its first, as an item of the history. No condition: the record guards it.
const furtherLeg = (node: Node, transferId: string, description: TransferDescription, leg: Leg, n: number, createdAt: string): Write => ({
  Put: {
    TableName: node.tables.main,
    Item: { pk: transferKey(node, transferId).pk, sk: `LEG#${n}`, transferId, ...description, createdAt, ...listedLeg(node, leg, createdAt) },
  },
});

// An entry of an account's history: a leg, as listedLeg keeps it, of the transfer it belongs to.
export interface HistoryEntry extends TransferDescription {
  transferId: string;
  debit: string;
  credit: string;
  amount: bigint;
  createdAt: string;
}

// A page of an account's history, newest first: its partitions in both indexes queried at once and
// merged (as a debit and as a credit).
export async function transferHistory(node: Node, accountId: string, limit: number, cursor?: string): Promise<Page<HistoryEntry>> {
  const partitions = historyPartitions(node, accountId);
  const page = await queryNewestFirst({ table: node.tables.main, ...LISTS, partitions, alsoIn: { ...LISTS2, partitions }, limit, cursor });
  return {
    items: page.items.map((i) => ({
      transferId: i.transferId,
      kind: i.kind,
      resource: i.resource,
      debit: i.debit,
      credit: i.credit,
      amount: BigInt(i.amount),
      createdAt: i.createdAt,
    })),
    nextCursor: page.nextCursor,
  };
}

// One item's change of balance, on the condition the account's rules set.
function balanceChange(node: Node, accountId: AccountId, itemId: string, delta: bigint): Write {
  const c = conditionFor(accountId, delta, limitOf(itemId));
  const covered = 'atLeast' in c && c.refusal !== TOO_LARGE; // a debit the balance must cover
  return {
    refusal: c.refusal,
    Update: {
      TableName: node.tables.main,
      Key: accountKey(node, itemId),
      UpdateExpression: 'SET balance = if_not_exists(balance, :zero) + :delta',
      ConditionExpression: covered
        ? 'balance >= :bound'
        : 'atMost' in c
          ? 'attribute_not_exists(balance) OR balance <= :bound'
          : 'attribute_not_exists(balance) OR balance >= :bound',
      ExpressionAttributeValues: { ':delta': delta, ':zero': 0n, ':bound': 'atMost' in c ? c.atMost : c.atLeast },
    },
  };
}

// Whether a transfer that moved money was made under this id (for an idempotent retry that
// arrives after the state moved on); a voided id (voidTransfer) is not one.
export async function transferExists(node: Node, transferId: string): Promise<boolean> {
  const res = await db().send(
    new GetCommand({ TableName: node.tables.main, Key: transferKey(node, transferId), ProjectionExpression: 'legs', ConsistentRead: true }),
  );
  return ((res.Item?.legs as unknown[] | undefined)?.length ?? 0) > 0;
}

// The refusal of this scope's signed request that the transfer `transferId` holds, if that request
// made it (`guardId` above): its replay (lib/platform/tx heldRiderRefusalAt).
export const transferReplayRefusal = (node: Node, transferId: string) => heldRiderRefusalAt(node, transferKey(node, transferId));

// Takes a transfer id for a transfer of nothing, unless a transfer holds it already: from then on
// no transfer can be made under it (its record is written only where none is). So of a transfer
// still under way and this, exactly one is on record, and the answer says which.
export async function voidTransfer(node: Node, transferId: string): Promise<'voided' | 'made'> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db().send(new PutCommand(authored(transferRecord(node, transferId, []), 'void-transfer').Put));
      return 'voided';
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) return 'made';
      // The transfer's own transaction holds the record this moment: ask again once it is done.
      if (!(e instanceof TransactionConflictException) || attempt === VOID_ATTEMPTS) throw e;
      await new Promise((r) => setTimeout(r, 5 * attempt));
    }
  }
}
const VOID_ATTEMPTS = 20;

// Each item's balance (items never written are left out), read exactly: the client reads whole
// numbers past 2^53 as bigints (lib/platform/db.ts).
async function itemBalances(node: Node, ids: string[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (!ids.length) return out;
  const items = await getAll(
    node.tables.main,
    ids.map((id) => accountKey(node, id)),
    { ConsistentRead: true, ProjectionExpression: 'pk, sk, balance' },
  );
  for (const item of items) out.set(accountIdOf(node, item.pk as string), BigInt(item.balance as bigint));
  return out;
}

// Each account's balance: the sum of its items.
export async function balances(node: Node, ids: string[]): Promise<Map<string, bigint>> {
  const held = await itemBalances(node, ids.flatMap(itemsOf));
  return new Map(ids.map((id) => [id, itemsOf(id).reduce((sum, item) => sum + (held.get(item) ?? 0n), 0n)]));
}

// Every account whose balance is not zero (its items summed), by one Scan of the main table: it reads every item
// (paying for all of them, 1 MB a page), so it serves the back-office ledger check only, never a
// request's path. Zero balances are left out: they add nothing to a sum.
export async function nonZeroBalances(node: Node): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const res = await db().send(
      new ScanCommand({
        TableName: node.tables.main,
        FilterExpression: 'begins_with(pk, :prefix) AND balance <> :zero',
        ProjectionExpression: 'pk, balance',
        ExpressionAttributeValues: { ':prefix': accountPrefix(node), ':zero': 0n },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of res.Items ?? []) {
      const id = accountOfItem(accountIdOf(node, item.pk));
      out.set(id, (out.get(id) ?? 0n) + BigInt(item.balance));
    }
    ExclusiveStartKey = res.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  for (const [id, balance] of out) if (balance === 0n) out.delete(id);
  return out;
}
