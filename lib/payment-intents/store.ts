import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, shardKeys, shardOf } from '../table';
import { db } from '../db';
import { config } from '../config';
import type { TransactItem } from '../table';
import type { IntentRecord } from './schemas';

// Payment intents. While an intent is open it carries `openPk` and `openExpiresAt`, the keys of the
// sparse index OpenIntents, which the expirer queries (all its shards); closing an intent removes
// them.
const TABLE = () => config.MAIN_TABLE;
export const intentKey = (id: string) => ({ pk: `INTENT#${id}`, sk: 'INTENT' });
// The intent's partition, which holds its outbox items too.
export const partition = (id: string) => intentKey(id).pk;
const OPEN = 'OPEN';
const OPEN_SHARDS = 16;

export const putIntent = (r: IntentRecord): TransactItem => ({
  Put: {
    TableName: TABLE(),
    Item: { ...intentKey(r.id), ...r, metadata: JSON.stringify(r.metadata), openPk: `${OPEN}#${shardOf(r.id, OPEN_SHARDS)}`, openExpiresAt: `${r.expiresAt}#${r.id}` },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

// Moves an open intent to `state`, on condition that it is still open and unchanged since `r`
// was read (received amount), and, unless it is expiring, not past its expiry.
export function closeOrCredit(r: IntentRecord, changes: { state: string; received?: string; completedAt?: string }, now: string): TransactItem {
  const expiring = changes.state === 'expired';
  return {
    Update: {
      TableName: TABLE(),
      Key: intentKey(r.id),
      UpdateExpression:
        `SET #state = :state, received = :received${changes.completedAt ? ', completedAt = :completedAt' : ''}` +
        (changes.state === 'processing' ? '' : ' REMOVE openPk, openExpiresAt'),
      ConditionExpression: `#state IN (:pending, :processing) AND received = :was AND expiresAt ${expiring ? '<=' : '>'} :now`,
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':state': changes.state,
        ':received': changes.received ?? r.received,
        ':was': r.received,
        ':pending': 'pending',
        ':processing': 'processing',
        ':now': now,
        ...(changes.completedAt && { ':completedAt': changes.completedAt }),
      },
    },
  };
}

export async function findIntent(id: string): Promise<IntentRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: TABLE(), Key: intentKey(id), ConsistentRead: true }));
  if (!Item) return undefined;
  const { pk, sk, openPk, openExpiresAt, metadata, ...record } = Item;
  return { ...record, metadata: JSON.parse(metadata) } as IntentRecord;
}

export async function listOpenExpiredBy(now: string): Promise<string[]> {
  const shards = await Promise.all(
    shardKeys(OPEN, OPEN_SHARDS).map((open) =>
      queryAll({
        TableName: TABLE(),
        IndexName: 'OpenIntents',
        KeyConditionExpression: 'openPk = :open AND openExpiresAt <= :now',
        ExpressionAttributeValues: { ':open': open, ':now': `${now}#~` },
      }),
    ),
  );
  return shards.flat().map((i) => (i.pk as string).slice('INTENT#'.length));
}
