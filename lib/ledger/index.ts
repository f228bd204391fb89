import { createHash, randomInt, randomUUID } from 'node:crypto';
import { BatchGetCommand, GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db';
import { balanceTooLarge, DomainError } from '../errors';
import type { Node } from '../node';
import { commit, type Refusals, type Write } from '../tx';
import { accountIdOf, accountKey } from './keys';

// A double-entry ledger at the fixed scale of 20 (bigint units). Each account is one item with a
// `balance`; a transfer is one record plus the balance updates, written in the caller's DynamoDB
// transaction together with whatever state change the transfer belongs to. The transfer record's
// id makes it idempotent. An account that was never written holds zero and comes into being at
// its first credit. Only settlement accounts, which stand for money outside the ledger, may go
// negative; every other debit is conditional on the balance covering it.
//
// Every funding and withdrawal of an asset moves money through its settlement account, so that
// account is split over SETTLEMENT_SHARDS items, one picked at random for each transfer: no item
// takes every write. Its balance is the sum of its shards; as it may go negative, no condition
// spans them.
const SETTLEMENT_SHARDS = 16;

export const account = {
  liquidity: (assetId: string) => `liquidity:${assetId}`,
  // One shard of the asset's settlement account, picked at random for one transfer.
  settlementShard: (assetId: string) => `settlement:${assetId}#${randomInt(SETTLEMENT_SHARDS)}`,
  intent: (intentId: string) => `intent:${intentId}`,
  payment: (paymentId: string) => `payment:${paymentId}`,
  // The credit line extended to a peer: what it may still send this node (never negative).
  peer: (peerId: string) => `peer:${peerId}`,
  // What a payment sent over Interledger has in flight, per asset: reserved before each packet
  // leaves, then posted to the peer or returned (lib/payments/remote.ts).
  hold: (paymentId: string, assetId: string) => `hold:${paymentId}:${assetId}`,
};

// A condition, for a transaction, that an account holds nothing (or was never written).
export function emptyAccountCheck(node: Node, id: string, refusal: string): Write {
  return {
    refusal,
    ConditionCheck: {
      TableName: node.tables.main,
      Key: accountKey(id),
      ConditionExpression: 'attribute_not_exists(pk) OR balance = :zero',
      ExpressionAttributeValues: { ':zero': 0n },
    },
  };
}

const mayGoNegative = (id: string) => id.startsWith('settlement:');
const MAX_BALANCE = 10n ** 38n - 1n;

// What a transfer's refusals mean: 'exists' (made before: the transfer id is idempotent),
// 'insufficient:<account>' (a debit the balance does not cover) and 'too_large' (a balance would
// pass the 38 digits a DynamoDB number holds: the request is too large). This is the one place
// that rule lives.
export const TRANSFER_EXISTS = 'transfer_exists';
export const insufficient = (accountId: string) => `insufficient:${accountId}`;
export const TOO_LARGE = 'too_large';

export function refuseTooLarge(refusals: Refusals): void {
  if (refusals.includes(TOO_LARGE)) throw balanceTooLarge();
}

export interface Leg {
  debit: string;
  credit: string;
  amount: bigint;
}

export const transferKey = (id: string) => ({ pk: `XFER#${id}`, sk: 'XFER' });

// The transfer record and one update per account it touches (DynamoDB allows one operation per
// item in a transaction, so the legs are netted per account), each naming its refusal.
export function transferItems(node: Node, transferId: string, legs: Leg[]): Write[] {
  const net = new Map<string, bigint>();
  for (const leg of legs) {
    if (leg.amount <= 0n) throw new Error(`A transfer leg must move a positive amount (${transferId})`);
    net.set(leg.debit, (net.get(leg.debit) ?? 0n) - leg.amount);
    net.set(leg.credit, (net.get(leg.credit) ?? 0n) + leg.amount);
  }
  const items: Write[] = [
    {
      refusal: TRANSFER_EXISTS,
      Put: {
        TableName: node.tables.main,
        Item: {
          ...transferKey(transferId),
          transferId,
          legs: legs.map((l) => ({ debit: l.debit, credit: l.credit, amount: l.amount.toString() })),
          createdAt: new Date().toISOString(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
  for (const [id, delta] of net) {
    if (delta === 0n) continue;
    if (delta > MAX_BALANCE || delta < -MAX_BALANCE) throw balanceTooLarge();
    // A debit needs the money (but a settlement account may go negative); no balance may pass
    // 38 digits either way, what a DynamoDB number holds.
    const mustCover = delta < 0n && !mayGoNegative(id);
    items.push({
      refusal: mustCover ? insufficient(id) : TOO_LARGE,
      Update: {
        TableName: node.tables.main,
        Key: accountKey(id),
        UpdateExpression: 'SET balance = if_not_exists(balance, :zero) + :delta',
        ConditionExpression: mustCover
          ? 'balance >= :bound'
          : delta > 0n
            ? 'attribute_not_exists(balance) OR balance <= :bound'
            : 'attribute_not_exists(balance) OR balance >= :bound',
        ExpressionAttributeValues: { ':delta': delta, ':zero': 0n, ':bound': mustCover ? -delta : delta > 0n ? MAX_BALANCE - delta : -MAX_BALANCE - delta },
      },
    });
  }
  return items;
}

// Whether a transfer was made (for an idempotent retry that arrives after the state moved on).
export async function transferExists(node: Node, transferId: string): Promise<boolean> {
  const res = await db().send(new GetCommand({ TableName: node.tables.main, Key: transferKey(transferId), ProjectionExpression: 'pk', ConsistentRead: true }));
  return res.Item !== undefined;
}

export async function balances(node: Node, ids: string[]): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  if (!ids.length) return out;
  const res = await db().send(
    new BatchGetCommand({
      RequestItems: { [node.tables.main]: { Keys: ids.map(accountKey), ConsistentRead: true, ProjectionExpression: 'pk, balance' } },
    }),
  );
  // Exact: the client reads whole numbers past 2^53 as bigints (lib/db.ts).
  for (const item of res.Responses?.[node.tables.main] ?? []) out.set(accountIdOf(item.pk), BigInt(item.balance));
  return out;
}

export const balanceOf = async (node: Node, id: string): Promise<bigint> => (await balances(node, [id])).get(id) ?? 0n;

// Moves everything an account holds to a settlement account (the FSP pays it out) and returns
// how much that was; zero moves nothing. A concurrent change of the balance is a 409 to retry.
export async function settleAll(node: Node, id: string, settlement: string): Promise<bigint> {
  const units = await balanceOf(node, id);
  if (units === 0n) return 0n;
  const refusals = await commit(node, transferItems(node, randomUUID(), [{ debit: id, credit: settlement, amount: units }]));
  refuseTooLarge(refusals);
  if (refusals.length) throw new DomainError('conflict', 'concurrent_withdrawal', 'The balance changed during the withdrawal; retry');
  return units;
}

// Moves `units` between an account and its asset's settlement account: a deposit credits the
// account, a withdrawal takes from it (and may find too little). With an Idempotency-Key the
// transfer's id comes from it, so a retry after an unclear failure finds the transfer made and
// does not move the money again.
export async function moveFunds(
  node: Node,
  id: string,
  assetId: string,
  units: bigint,
  direction: 'deposit' | 'withdrawal',
  idempotencyKey?: string,
): Promise<'moved' | 'insufficient'> {
  const [from, to] = direction === 'deposit' ? [account.settlementShard(assetId), id] : [id, account.settlementShard(assetId)];
  const transferId = idempotencyKey ? `liquidity:${createHash('sha256').update(`${id}|${direction}|${units}|${idempotencyKey}`).digest('hex')}` : randomUUID();
  const refusals = await commit(node, transferItems(node, transferId, [{ debit: from, credit: to, amount: units }]));
  if (!refusals.length || refusals.includes(TRANSFER_EXISTS)) return 'moved'; // made before: success
  refuseTooLarge(refusals);
  return 'insufficient';
}
