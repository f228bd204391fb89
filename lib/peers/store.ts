import { createHash } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../platform/db';
import { getOne, type Lookup, type Page, queryAll, queryNewestFirst, scoped, shardKeys, shardOf } from '../platform/store';
import type { Write } from '../platform/tx';
import { type Node, OPERATOR_TENANT_ID } from '../shared/node';
import { tokenChanges } from './rules';
import type { Peer, PeerRecord } from './schemas';

// A peer is stored under its id (listed, newest first, through the Lists index), and claims two
// kinds of unique keys: its static ILP address within its asset (one peering relationship per
// address and asset), and each of its incoming tokens (a token names one peer), kept as SHA-256.
// A token's claim is the one key not in the tenant's key space: an incoming packet's token is how
// the connector finds both the peer and the tenant it peers with (the claim names them).
const byId = (node: Node, id: string) => ({ pk: scoped(node, `PEER#${id}`), sk: 'PEER' });
const byAddress = (node: Node, assetId: string, address: string) => ({ pk: scoped(node, `PEERADDR#${assetId}#${address}`), sk: 'PEER' });
const byToken = (hash: string) => ({ pk: `PEERTOKEN#${hash}`, sk: 'PEER' });
const LIST = 'PEERS';
const LIST_SHARDS = 4;
// The peer's partition, which holds its outbox items too.
export const partition = (node: Node, id: string) => byId(node, id).pk;

export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

// Refusals: 'peer_exists' (the address is taken in the asset), 'auth_token_in_use' (a token is
// another peer's), 'peer_changed' (the record is gone or changed since it was read), and
// 'peer_has_liquidity' (removing a peer whose credit line holds something).
declare module '../platform/tx' {
  interface RefusalsOf {
    peers: 'peer_exists' | 'auth_token_in_use' | 'peer_changed' | 'peer_has_liquidity';
  }
}
const claim = (node: Node, key: { pk: string; sk: string }, peerId: string, refusal: 'peer_exists' | 'auth_token_in_use'): Write => ({
  refusal,
  Put: { TableName: node.tables.main, Item: { ...key, peerId, tenant: node.tenant.id }, ConditionExpression: 'attribute_not_exists(pk)' },
});
const release = (node: Node, key: { pk: string; sk: string }): Write => ({ Delete: { TableName: node.tables.main, Key: key } });

// The record as read, unchanged since (a record from before versions has none).
const unchanged = (was: PeerRecord) =>
  was.version === undefined
    ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(version)' }
    : { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': was.version } };

const putRecord = (node: Node, p: PeerRecord, condition: { ConditionExpression: string; ExpressionAttributeValues?: Record<string, unknown> }): Write => ({
  refusal: 'peer_changed',
  Put: {
    TableName: node.tables.main,
    Item: { ...byId(node, p.id), ...p, listPk: scoped(node, `${LIST}#${shardOf(p.id, LIST_SHARDS)}`), listSk: `${p.createdAt}#${p.id}` },
    ...condition,
  },
});

// The items that create a peer: its record, and its claims on its address and its tokens.
export function insertPeer(node: Node, p: PeerRecord): Write[] {
  return [
    putRecord(node, { ...p, version: 1 }, { ConditionExpression: 'attribute_not_exists(pk)' }),
    claim(node, byAddress(node, p.assetId, p.staticIlpAddress), p.id, 'peer_exists'),
    ...p.incomingTokenHashes.map((h) => claim(node, byToken(h), p.id, 'auth_token_in_use')),
  ];
}

// The items that replace a peer's record as read; tokens it drops are released, new ones claimed.
export function replacePeer(node: Node, was: PeerRecord, now: PeerRecord): Write[] {
  const { added, dropped } = tokenChanges(was.incomingTokenHashes, now.incomingTokenHashes);
  return [
    putRecord(node, { ...now, version: (was.version ?? 0) + 1 }, unchanged(was)),
    ...dropped.map((h) => release(node, byToken(h))),
    ...added.map((h) => claim(node, byToken(h), now.id, 'auth_token_in_use')),
  ];
}

// How many two-phase withdrawals hold some of the peer's liquidity (lib/liquidity-withdrawals): an
// item beside its record, counted up when one is held and down when it ends, so that the peer
// cannot be deleted while one could still be voided back to it (removePeer's condition).
const withdrawalsKey = (node: Node, id: string) => ({ pk: byId(node, id).pk, sk: 'WITHDRAWALS' });
export const countWithdrawals = (node: Node, id: string, delta: 1 | -1): Write => ({
  Update: {
    TableName: node.tables.main,
    Key: withdrawalsKey(node, id),
    UpdateExpression: 'ADD held :delta',
    ExpressionAttributeValues: { ':delta': delta },
  },
});

export function removePeer(node: Node, p: PeerRecord): Write[] {
  return [
    { refusal: 'peer_changed', Delete: { TableName: node.tables.main, Key: byId(node, p.id), ...unchanged(p) } },
    {
      refusal: 'peer_has_liquidity',
      Delete: {
        TableName: node.tables.main,
        Key: withdrawalsKey(node, p.id),
        ConditionExpression: 'attribute_not_exists(pk) OR held = :none',
        ExpressionAttributeValues: { ':none': 0 },
      },
    },
    release(node, byAddress(node, p.assetId, p.staticIlpAddress)),
    ...p.incomingTokenHashes.map((h) => release(node, byToken(h))),
  ];
}

const toRecord = ({ pk, sk, listPk, listSk, ...record }: Record<string, any>): PeerRecord =>
  ({
    ...record,
    name: record.name ?? null,
    maxPacketAmount: record.maxPacketAmount ?? null,
    liquidityThreshold: record.liquidityThreshold ?? null,
    routes: record.routes ?? [], // none on a peer made before routes
  }) as PeerRecord;

export const peerLookup = (node: Node, id: string): Lookup<PeerRecord> => ({ table: node.tables.main, key: byId(node, id), read: toRecord });
export const findPeer = (node: Node, id: string) => getOne(peerLookup(node, id));

// The id of the peer at this address in this asset, if there is one (its claim names it).
export async function peerIdAt(node: Node, assetId: string, address: string): Promise<string | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: byAddress(node, assetId, address), ConsistentRead: true }));
  return Item?.peerId;
}

// The peer an incoming token names, and its tenant's id (claims made before tenants: the operator's).
export async function findPeerByToken(node: Node, hash: string): Promise<{ peerId: string; tenantId: string } | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: byToken(hash) }));
  return Item && { peerId: Item.peerId, tenantId: Item.tenant ?? OPERATOR_TENANT_ID };
}

export async function listPeers(node: Node, limit: number, cursor?: string): Promise<Page<PeerRecord>> {
  const page = await queryNewestFirst({
    table: node.tables.main,
    index: 'Lists',
    partitionKey: 'listPk',
    sortKey: 'listSk',
    partitions: shardKeys(node, LIST, LIST_SHARDS),
    limit,
    cursor,
  });
  return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
}

// Every peer, for routing.
export async function allPeers(node: Node): Promise<PeerRecord[]> {
  const shards = await Promise.all(
    shardKeys(node, LIST, LIST_SHARDS).map((pk) =>
      queryAll({ TableName: node.tables.main, IndexName: 'Lists', KeyConditionExpression: 'listPk = :pk', ExpressionAttributeValues: { ':pk': pk } }),
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
  routes: r.routes,
  createdAt: r.createdAt,
});
