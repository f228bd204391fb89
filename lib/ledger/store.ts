import { BatchGetCommand, GetCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db';
import type { Node } from '../node';
import type { Write } from '../tx';
import { conditionFor, type Leg, netChanges, TOO_LARGE, TRANSFER_EXISTS } from './rules';

// Where the ledger lives in the main table: each account is one item with a `balance` (its id is
// its key without the prefix); each transfer one record, whose id makes it idempotent.
const ACCOUNT_PREFIX = 'ACCT#';
const accountKey = (id: string) => ({ pk: `${ACCOUNT_PREFIX}${id}`, sk: 'ACCT' });
export const accountIdOf = (pk: string) => pk.slice(ACCOUNT_PREFIX.length);
const transferKey = (id: string) => ({ pk: `XFER#${id}`, sk: 'XFER' });

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

// The transfer record and one update per account it touches, each conditional on the ledger's
// rules (./rules.ts) and naming its refusal. An account never written comes into being at its
// first credit.
export function transferItems(node: Node, transferId: string, legs: Leg[]): Write[] {
  const writes: Write[] = [
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
  for (const [id, delta] of netChanges(transferId, legs)) {
    const c = conditionFor(id, delta);
    const covered = 'atLeast' in c && c.refusal !== TOO_LARGE; // a debit the balance must cover
    writes.push({
      refusal: c.refusal,
      Update: {
        TableName: node.tables.main,
        Key: accountKey(id),
        UpdateExpression: 'SET balance = if_not_exists(balance, :zero) + :delta',
        ConditionExpression: covered
          ? 'balance >= :bound'
          : 'atMost' in c
            ? 'attribute_not_exists(balance) OR balance <= :bound'
            : 'attribute_not_exists(balance) OR balance >= :bound',
        ExpressionAttributeValues: { ':delta': delta, ':zero': 0n, ':bound': 'atMost' in c ? c.atMost : c.atLeast },
      },
    });
  }
  return writes;
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

// Every account whose balance is not zero, by one Scan of the main table: it reads every item
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
        ExpressionAttributeValues: { ':prefix': ACCOUNT_PREFIX, ':zero': 0n },
        ConsistentRead: true,
        ExclusiveStartKey,
      }),
    );
    for (const item of res.Items ?? []) out.set(accountIdOf(item.pk), BigInt(item.balance));
    ExclusiveStartKey = res.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return out;
}
