import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db';
import type { Node } from '../node';
import { queryAll, shardKeys, shardOf } from '../store';
import type { Write } from '../tx';
import type { IntentRecord } from './schemas';

// Payment intents. While an intent is open it carries `openPk` and `openExpiresAt`, the keys of the
// sparse index OpenIntents, which the expirer queries (all its shards); closing an intent removes
// them. Each intent is also listed under its wallet address in the Lists index, newest first.
export const intentKey = (id: string) => ({ pk: `INTENT#${id}`, sk: 'INTENT' });
// The intent's partition, which holds its outbox items too.
export const partition = (id: string) => intentKey(id).pk;
const OPEN = 'OPEN';
const OPEN_SHARDS = 16;
const byWallet = (walletAddressId: string) => `INTENTS#${walletAddressId}`;

export const putIntent = (node: Node, r: IntentRecord): Write => ({
  Put: {
    TableName: node.tables.main,
    Item: {
      ...intentKey(r.id),
      ...r,
      metadata: JSON.stringify(r.metadata),
      openPk: `${OPEN}#${shardOf(r.id, OPEN_SHARDS)}`,
      openExpiresAt: `${r.expiresAt}#${r.id}`,
      listPk: byWallet(r.walletAddressId),
      listSk: `${r.createdAt}#${r.id}`,
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

// Moves an open intent to `state`, on condition that it is still open and unchanged since `r`
// was read (received amount), and, unless it is expiring, not past its expiry; else refused as
// 'intent_changed'.
export const INTENT_CHANGED = 'intent_changed';
export function closeOrCredit(node: Node, r: IntentRecord, changes: { state: string; received?: string; completedAt?: string }, now: string): Write {
  const expiring = changes.state === 'expired';
  return {
    refusal: INTENT_CHANGED,
    Update: {
      TableName: node.tables.main,
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

const toRecord = ({ pk, sk, openPk, openExpiresAt, listPk, listSk, metadata, ...record }: Record<string, any>) =>
  ({ ...record, metadata: JSON.parse(metadata) }) as IntentRecord;

export async function findIntent(node: Node, id: string): Promise<IntentRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: intentKey(id), ConsistentRead: true }));
  if (!Item) return undefined;
  return toRecord(Item);
}

export async function listOpenExpiredBy(node: Node, now: string): Promise<string[]> {
  const shards = await Promise.all(
    shardKeys(OPEN, OPEN_SHARDS).map((open) =>
      queryAll({
        TableName: node.tables.main,
        IndexName: 'OpenIntents',
        KeyConditionExpression: 'openPk = :open AND openExpiresAt <= :now',
        ExpressionAttributeValues: { ':open': open, ':now': `${now}#~` },
      }),
    ),
  );
  return shards.flat().map((i) => (i.pk as string).slice('INTENT#'.length));
}

// A page of a wallet address's intents, newest first, for Open Payments' cursor pagination:
// `first` after the cursor (older), or `last` before it (newer). Cursors are the listing's sort
// keys (createdAt#id), opaque to clients. With `client`, only the intents that client created.
export interface IntentPage {
  records: IntentRecord[];
  hasNextPage: boolean; // older ones follow
  hasPreviousPage: boolean; // newer ones precede
}

async function queryWallet(
  node: Node,
  walletAddressId: string,
  opts: { older: boolean; from?: string; limit: number; client?: string },
): Promise<IntentRecord[]> {
  const found: IntentRecord[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const res = await db().send(
      new QueryCommand({
        TableName: node.tables.main,
        IndexName: 'Lists',
        KeyConditionExpression: `listPk = :pk${opts.from ? ` AND listSk ${opts.older ? '<' : '>'} :from` : ''}`,
        ...(opts.client && { FilterExpression: 'client = :client' }),
        ExpressionAttributeValues: {
          ':pk': byWallet(walletAddressId),
          ...(opts.from && { ':from': opts.from }),
          ...(opts.client && { ':client': opts.client }),
        },
        ScanIndexForward: !opts.older,
        Limit: opts.limit,
        ExclusiveStartKey,
      }),
    );
    found.push(...(res.Items ?? []).map(toRecord));
    ExclusiveStartKey = res.LastEvaluatedKey;
  } while (ExclusiveStartKey && found.length < opts.limit);
  return found.slice(0, opts.limit);
}

export async function pageByWallet(
  node: Node,
  walletAddressId: string,
  opts: { size: number; direction: 'older' | 'newer'; cursor?: string; client?: string },
): Promise<IntentPage> {
  const older = opts.direction === 'older';
  const [found, beyondCursor] = await Promise.all([
    queryWallet(node, walletAddressId, { older, from: opts.cursor, limit: opts.size + 1, client: opts.client }),
    opts.cursor ? queryWallet(node, walletAddressId, { older: !older, from: opts.cursor, limit: 1, client: opts.client }) : Promise.resolve([]),
  ]);
  const more = found.length > opts.size;
  const page = found.slice(0, opts.size);
  const records = older ? page : page.reverse();
  return older
    ? { records, hasNextPage: more, hasPreviousPage: beyondCursor.length > 0 }
    : { records, hasNextPage: beyondCursor.length > 0, hasPreviousPage: more };
}

export const cursorOf = (r: IntentRecord) => `${r.createdAt}#${r.id}`;
