import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db } from '../db';
import { type Page, queryAll, queryNewestFirst, shardKeys, shardOf, type TransactItem } from '../table';
import type { Peer, PeerRecord } from './schemas';

// A peer is stored under its id (listed, newest first, through the Lists index), and claims two
// kinds of unique keys: its static ILP address within its asset (one peering relationship per
// address and asset), and each of its incoming tokens (a token names one peer), kept as SHA-256.
const TABLE = () => config.MAIN_TABLE;
const byId = (id: string) => ({ pk: `PEER#${id}`, sk: 'PEER' });
const byAddress = (assetId: string, address: string) => ({ pk: `PEERADDR#${assetId}#${address}`, sk: 'PEER' });
const byToken = (hash: string) => ({ pk: `PEERTOKEN#${hash}`, sk: 'PEER' });
const LIST = 'PEERS';
const LIST_SHARDS = 4;
// The peer's partition, which holds its outbox items too.
export const partition = (id: string) => byId(id).pk;

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

const claim = (key: { pk: string; sk: string }, peerId: string): TransactItem => ({
  Put: { TableName: TABLE(), Item: { ...key, peerId }, ConditionExpression: 'attribute_not_exists(pk)' },
});
const release = (key: { pk: string; sk: string }): TransactItem => ({ Delete: { TableName: TABLE(), Key: key } });

// The record as read, unchanged since (a record from before versions has none).
const unchanged = (was: PeerRecord) =>
  was.version === undefined
    ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(version)' }
    : { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': was.version } };

const putRecord = (p: PeerRecord, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }): TransactItem => ({
  Put: {
    TableName: TABLE(),
    Item: { ...byId(p.id), ...p, listPk: `${LIST}#${shardOf(p.id, LIST_SHARDS)}`, listSk: `${p.createdAt}#${p.id}` },
    ...condition,
  },
});

// The items that create a peer: its record, its address (index 1 fails if taken) and its tokens
// (indexes from 2 fail if taken).
export function insertPeer(p: PeerRecord): TransactItem[] {
  return [
    putRecord({ ...p, version: 1 }, { ConditionExpression: 'attribute_not_exists(pk)' }),
    claim(byAddress(p.assetId, p.staticIlpAddress), p.id),
    ...p.incomingTokenHashes.map((h) => claim(byToken(h), p.id)),
  ];
}

// The items that replace a peer's record as read (index 0 fails if it is gone or changed since);
// tokens it drops are released, new ones claimed (the indexes of those claims, in the result,
// fail if another peer holds the token).
export function replacePeer(was: PeerRecord, now: PeerRecord): { items: TransactItem[]; claims: number[] } {
  const added = now.incomingTokenHashes.filter((h) => !was.incomingTokenHashes.includes(h));
  const dropped = was.incomingTokenHashes.filter((h) => !now.incomingTokenHashes.includes(h));
  const items = [putRecord({ ...now, version: (was.version ?? 0) + 1 }, unchanged(was)), ...dropped.map((h) => release(byToken(h)))];
  const claims = added.map((_, i) => items.length + i);
  return { items: [...items, ...added.map((h) => claim(byToken(h), now.id))], claims };
}

export function removePeer(p: PeerRecord): TransactItem[] {
  return [
    { Delete: { TableName: TABLE(), Key: byId(p.id), ...unchanged(p) } },
    release(byAddress(p.assetId, p.staticIlpAddress)),
    ...p.incomingTokenHashes.map((h) => release(byToken(h))),
  ];
}

const toRecord = ({ pk, sk, listPk, listSk, ...record }: Record<string, any>): PeerRecord =>
  ({
    ...record,
    name: record.name ?? null,
    maxPacketAmount: record.maxPacketAmount ?? null,
    liquidityThreshold: record.liquidityThreshold ?? null,
  }) as PeerRecord;

export async function findPeer(id: string): Promise<PeerRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: TABLE(), Key: byId(id), ConsistentRead: true }));
  return Item && toRecord(Item);
}

export async function findPeerIdByToken(hash: string): Promise<string | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: TABLE(), Key: byToken(hash) }));
  return Item?.peerId;
}

export async function listPeers(limit: number, cursor?: string): Promise<Page<PeerRecord>> {
  const page = await queryNewestFirst({
    table: TABLE(),
    index: 'Lists',
    partitionKey: 'listPk',
    sortKey: 'listSk',
    partitions: shardKeys(LIST, LIST_SHARDS),
    limit,
    cursor,
  });
  return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
}

// Every peer, for routing.
export async function allPeers(): Promise<PeerRecord[]> {
  const shards = await Promise.all(
    shardKeys(LIST, LIST_SHARDS).map((pk) =>
      queryAll({ TableName: TABLE(), IndexName: 'Lists', KeyConditionExpression: 'listPk = :pk', ExpressionAttributeValues: { ':pk': pk } }),
    ),
  );
  return shards.flat().map(toRecord);
}

export const viewOf = (r: PeerRecord): Peer => ({
  id: r.id,
  name: r.name,
  staticIlpAddress: r.staticIlpAddress,
  assetCode: r.assetCode,
  assetScale: r.assetScale,
  http: { outgoing: { endpoint: r.http.outgoing.endpoint } },
  maxPacketAmount: r.maxPacketAmount,
  liquidityThreshold: r.liquidityThreshold,
  createdAt: r.createdAt,
});
