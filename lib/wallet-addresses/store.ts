import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../platform/db';
import { countUpTo, getOne, LISTS, type Lookup, type Page, queryAll, queryNewestFirst, scoped, shardKeys, shardOf } from '../platform/store';
import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';
import { MAX_ACTIVE_KEYS, type WalletAddress, type WalletAddressKey, type WalletAddressStatus } from './schemas';

// A wallet address is stored under its canonical URL (which makes it unique and lets the resource
// server answer with one read) and under its id, which the Lists index lists, newest first, spread
// over a few partitions; its keys sit in the URL's partition so that jwks.json is one query. The
// base URL is recorded once, with the first address, and never changes.
const byUrl = (node: Node, address: string) => ({ pk: urlPartition(node, address), sk: 'WA' });
const urlPartition = (node: Node, address: string) => scoped(node, `WAURL#${address}`);
const byId = (node: Node, id: string) => ({ pk: scoped(node, `WA#${id}`), sk: 'WA' });
const LIST = 'WALLETS';
const LIST_SHARDS = 4;
const keyOf = (node: Node, address: string, kid: string) => ({ pk: urlPartition(node, address), sk: `KEY#${kid}` });
const baseKey = (node: Node) => ({ pk: scoped(node, 'CONFIG'), sk: 'WALLET_ADDRESS_URL' });
// An address looked up and not found, while the FSP is told of it (until its TTL).
const notFoundKey = (node: Node, address: string) => ({ pk: scoped(node, `WANOTFOUND#${address}`), sk: 'NOTFOUND' });
// As stored: approvalRequired is the wallet address's own, absent when it was never given one.
export type StoredWallet = Omit<WalletAddress, 'approvalRequired'> & { approvalRequired?: boolean };
const toWallet = (i: Record<string, any>): StoredWallet => ({
  id: i.id,
  address: i.address,
  assetCode: i.assetCode,
  assetScale: i.assetScale,
  publicName: i.publicName ?? null,
  ...(i.approvalRequired !== undefined && { approvalRequired: i.approvalRequired }),
  status: i.status ?? 'active', // none before statuses were
  createdAt: i.createdAt,
});
const toKey = (i: Record<string, any>): WalletAddressKey => ({
  walletAddressId: i.walletAddressId,
  kid: i.kid,
  jwk: i.jwk,
  createdAt: i.createdAt,
  revokedAt: i.revokedAt ?? null,
});

export async function recordedBase(node: Node): Promise<string | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: baseKey(node), ConsistentRead: true }));
  return Item?.base as string | undefined;
}

// The write that records `base`, in the first creation's transaction (a refused creation records
// nothing); refused (BASE_RECORDED) when another creation recorded one meanwhile.
export const BASE_RECORDED = 'base_recorded';
export const recordBase = (node: Node, base: string): Write => ({
  refusal: BASE_RECORDED,
  Put: { TableName: node.tables.main, Item: { ...baseKey(node), base }, ConditionExpression: 'attribute_not_exists(pk)' },
});

// Stored beside the view: the asset's id, which payments need and would otherwise look up.
export type WalletRecord = StoredWallet & { assetId: string };

// The service's own address (its Open Payments client identity): published like a wallet address,
// with its key, but no payment account (no asset, no id) and not listed. Writing it again is
// harmless, so it is written as it is, with no condition.
export function putServiceIdentity(node: Node, address: string, publicName: string, key: WalletAddressKey): Write[] {
  return [
    { Put: { TableName: node.tables.main, Item: { ...byUrl(node, address), address, publicName, assetCode: 'XXX', assetScale: 0, createdAt: key.createdAt } } },
    { Put: { TableName: node.tables.main, Item: { ...keyOf(node, address, key.kid), ...key, revokedAt: undefined } } },
  ];
}

// The items that create a wallet address, refused ('wallet_address_exists') when the address exists.
export function insertWalletAddress(node: Node, wa: WalletRecord): Write[] {
  return [
    {
      refusal: 'wallet_address_exists',
      Put: { TableName: node.tables.main, Item: { ...byUrl(node, wa.address), ...wa }, ConditionExpression: 'attribute_not_exists(pk)' },
    },
    {
      Put: {
        TableName: node.tables.main,
        Item: { ...byId(node, wa.id), ...wa, listPk: scoped(node, `${LIST}#${shardOf(wa.id, LIST_SHARDS)}`), listSk: `${wa.createdAt}#${wa.id}` },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

export async function listWalletAddresses(node: Node, limit: number, cursor?: string): Promise<Page<StoredWallet>> {
  const page = await queryNewestFirst({ table: node.tables.main, ...LISTS, partitions: shardKeys(node, LIST, LIST_SHARDS), limit, cursor });
  return { items: page.items.map(toWallet), nextCursor: page.nextCursor };
}

export const walletLookup = (node: Node, id: string): Lookup<StoredWallet> => ({ table: node.tables.main, key: byId(node, id), read: toWallet });
export const walletByUrlLookup = (node: Node, address: string): Lookup<WalletRecord> => ({
  table: node.tables.main,
  key: byUrl(node, address),
  read: (item) => ({ ...toWallet(item), assetId: item.assetId }),
});
export const findWalletAddress = (node: Node, id: string) => getOne(walletLookup(node, id), false);
export const findWalletAddressByUrl = (node: Node, address: string) => getOne(walletByUrlLookup(node, address), false);

// The public name, approvalRequired and status are kept on both records, as read together with each.
// `partition`: where the change's event is written (the URL's, beside the record it describes).
export type WalletChanges = { publicName?: string; approvalRequired?: boolean; status?: WalletAddressStatus };
export const walletPartition = urlPartition;
export function updating(node: Node, wa: StoredWallet, changes: WalletChanges): Write[] {
  const names = Object.keys(changes).filter((k) => changes[k as keyof typeof changes] !== undefined);
  return [byId(node, wa.id), byUrl(node, wa.address)].map((Key) => ({
    Update: {
      TableName: node.tables.main,
      Key,
      UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: Object.fromEntries(names.map((n) => [`#${n}`, n])), // `status` is a reserved word
      ExpressionAttributeValues: Object.fromEntries(names.map((n) => [`:${n}`, changes[n as keyof typeof changes]])),
    },
  }));
}

declare module '../platform/tx' {
  interface RefusalsOf {
    'wallet-addresses':
      | 'wallet_address_exists'
      | typeof BASE_RECORDED
      | typeof WALLET_INACTIVE
      | 'key_exists'
      | 'too_many_keys'
      | 'not_revocable'
      | typeof NOT_FOUND_TOLD
      | typeof NOT_FOUND_RATE_OVER;
  }
}

// Active: not inactive (a record from before statuses were has none, and is active).
const ACTIVE = '#status <> :inactive';

// A condition, for a transaction that its owner's side starts on the wallet address at `address` (a
// quote, a payment, its funding): the wallet address is active as it commits, whatever a cache said.
// Refused as 'wallet_address_inactive'.
export const WALLET_INACTIVE = 'wallet_address_inactive';
export const walletActive = (node: Node, address: string): Write => ({
  refusal: WALLET_INACTIVE,
  ConditionCheck: {
    TableName: node.tables.main,
    Key: byUrl(node, address),
    ConditionExpression: ACTIVE,
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':inactive': 'inactive' },
  },
});

// What of the wallet address at `address` can change and decides what may be made on it (its
// status, its approvalRequired), read strongly consistent: for a creation on it, and for a credit of
// one of its intents, which many payers make at once. A condition in each of their transactions
// would make them all contend on this one record (transactions that touch one item conflict). None
// for an address with no record.
export interface Standing {
  active: boolean;
  approvalRequired?: boolean;
}
export async function standingOf(node: Node, address: string): Promise<Standing | undefined> {
  const { Item } = await db().send(
    new GetCommand({
      TableName: node.tables.main,
      Key: byUrl(node, address),
      ConsistentRead: true,
      ProjectionExpression: '#status, approvalRequired',
      ExpressionAttributeNames: { '#status': 'status' },
    }),
  );
  return Item && { active: Item.status !== 'inactive', ...(Item.approvalRequired !== undefined && { approvalRequired: Item.approvalRequired }) };
}
export const isActive = async (node: Node, address: string): Promise<boolean> => (await standingOf(node, address))?.active ?? true;

// Unrevoked keys are counted on the wallet address's record (`activeKeys`) in the same
// transaction as each key, so that racing additions cannot pass MAX_ACTIVE_KEYS. Refused as
// 'key_exists' or 'too_many_keys'.
export function insertKey(node: Node, address: string, key: WalletAddressKey): Write[] {
  return [
    {
      refusal: 'key_exists',
      // revokedAt is absent until revocation, so that the revocation can set it once.
      Put: {
        TableName: node.tables.main,
        Item: { ...keyOf(node, address, key.kid), ...key, revokedAt: undefined },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    {
      refusal: 'too_many_keys',
      Update: {
        TableName: node.tables.main,
        Key: byUrl(node, address),
        UpdateExpression: 'SET activeKeys = if_not_exists(activeKeys, :zero) + :one',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(activeKeys) OR activeKeys < :max)',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': MAX_ACTIVE_KEYS },
      },
    },
  ];
}

// The wallet address record and its keys, in one query of the URL's partition.
export async function findWithKeys(node: Node, address: string): Promise<{ wallet?: StoredWallet; keys: WalletAddressKey[] }> {
  const items = await queryAll({
    TableName: node.tables.main,
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': urlPartition(node, address) },
  });
  const wallet = items.find((i) => i.sk === 'WA');
  return {
    wallet: wallet && toWallet(wallet),
    keys: items.filter((i) => String(i.sk).startsWith('KEY#')).map((i) => toKey(i)),
  };
}

// Refused ('not_revocable') when the key is unknown or revoked already.
export function revoking(node: Node, address: string, kid: string, at: string): Write[] {
  return [
    {
      refusal: 'not_revocable',
      Update: {
        TableName: node.tables.main,
        Key: keyOf(node, address, kid),
        UpdateExpression: 'SET revokedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)',
        ExpressionAttributeValues: { ':at': at },
      },
    },
    {
      Update: {
        TableName: node.tables.main,
        Key: byUrl(node, address),
        UpdateExpression: 'ADD activeKeys :minusOne',
        ExpressionAttributeValues: { ':minusOne': -1 },
      },
    },
  ];
}

export async function findKey(node: Node, address: string, kid: string): Promise<WalletAddressKey | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: keyOf(node, address, kid), ConsistentRead: true }));
  return Item && toKey(Item);
}

// The FSP is told of a look-up of `address`, which is not there, unless it was told within the
// window (the item's TTL, which every write checks itself: DynamoDB deletes late). Refused as
// 'not_found_told'. `partition`: where the event is written, beside it.
export const NOT_FOUND_TOLD = 'not_found_told';
export const notFoundPartition = (node: Node, address: string) => notFoundKey(node, address).pk;
export const tellingNotFound = (node: Node, address: string, nowSecs: number, windowSecs: number): Write => ({
  refusal: NOT_FOUND_TOLD,
  Put: {
    TableName: node.tables.main,
    Item: { ...notFoundKey(node, address), address, ttl: nowSecs + windowSecs },
    ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
    ExpressionAttributeNames: { '#ttl': 'ttl' },
    ExpressionAttributeValues: { ':now': nowSecs },
  },
});

// At most `limit` of those events a minute (of the clock) for a tenant: a scanner that tries many
// addresses cannot flood the FSP. Refused as 'not_found_rate_over'; the address is then not marked
// told (the same transaction), so a look-up in a later minute tells of it.
export const NOT_FOUND_RATE_OVER = 'not_found_rate_over';
export const countNotFound = (node: Node, minuteSecs: number, limit: number): Write => ({
  refusal: NOT_FOUND_RATE_OVER,
  Update: { TableName: node.tables.main, Key: { pk: scoped(node, `WANOTFOUNDRATE#${minuteSecs}`), sk: 'RATE' }, ...countUpTo(limit, minuteSecs + 120) },
});
