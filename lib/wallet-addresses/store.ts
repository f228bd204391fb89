import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db } from '../db';
import { DomainError } from '../errors';
import { queryAll, type TransactItem } from '../table';
import { commit } from '../tx';
import { MAX_ACTIVE_KEYS, type WalletAddress, type WalletAddressKey } from './schemas';

// A wallet address is stored under its canonical URL (which makes it unique and lets the resource
// server answer with one read) and under its id; its keys sit in the URL's partition so that
// jwks.json is one query. The base URL is recorded once, with the first address, and never changes.
const TABLE = () => config.MAIN_TABLE;
const byUrl = (address: string) => ({ pk: `WAURL#${address}`, sk: 'WA' });
const byId = (id: string) => ({ pk: `WA#${id}`, sk: 'WA' });
const keyOf = (address: string, kid: string) => ({ pk: `WAURL#${address}`, sk: `KEY#${kid}` });
const BASE_KEY = { pk: 'CONFIG', sk: 'WALLET_ADDRESS_URL' };
const toWallet = (i: Record<string, any>): WalletAddress => ({
  id: i.id,
  address: i.address,
  assetCode: i.assetCode,
  assetScale: i.assetScale,
  publicName: i.publicName ?? null,
  createdAt: i.createdAt,
});
const toKey = (i: Record<string, any>): WalletAddressKey => ({
  walletAddressId: i.walletAddressId,
  kid: i.kid,
  jwk: i.jwk,
  createdAt: i.createdAt,
  revokedAt: i.revokedAt ?? null,
});

export async function recordedBase(): Promise<string | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: TABLE(), Key: BASE_KEY, ConsistentRead: true }));
  return Item?.base as string | undefined;
}

// Records `base` unless a base is recorded already; returns the one recorded.
export async function recordBase(base: string): Promise<string> {
  try {
    await db().send(new PutCommand({ TableName: TABLE(), Item: { ...BASE_KEY, base }, ConditionExpression: 'attribute_not_exists(pk)' }));
    return base;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return (await recordedBase())!;
    throw e;
  }
}

// Stored beside the view: the asset's id, which payments need and would otherwise look up.
export type WalletRecord = WalletAddress & { assetId: string };

// The service's own address (its Open Payments client identity): published like a wallet address,
// with its key, but no payment account (no asset, no id) and not listed. Writing it again is
// harmless, so it is written as it is, with no condition.
export function putServiceIdentity(address: string, publicName: string, key: WalletAddressKey): TransactItem[] {
  return [
    { Put: { TableName: TABLE(), Item: { ...byUrl(address), address, publicName, assetCode: 'XXX', assetScale: 0, createdAt: key.createdAt } } },
    { Put: { TableName: TABLE(), Item: { ...keyOf(address, key.kid), ...key, revokedAt: undefined } } },
  ];
}

// The items that create a wallet address; the first fails its condition when the address exists.
export function insertWalletAddress(wa: WalletRecord): TransactItem[] {
  return [
    { Put: { TableName: TABLE(), Item: { ...byUrl(wa.address), ...wa }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: TABLE(), Item: { ...byId(wa.id), ...wa }, ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
}

export async function findWalletAddress(id: string): Promise<WalletAddress | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: TABLE(), Key: byId(id) }));
  return Item && toWallet(Item);
}

export async function findWalletAddressByUrl(address: string): Promise<WalletRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: TABLE(), Key: byUrl(address) }));
  return Item && { ...toWallet(Item), assetId: Item.assetId };
}

export async function updatePublicName(wa: WalletAddress, publicName: string): Promise<void> {
  const update = (Key: Record<string, string>) => ({
    Update: {
      TableName: TABLE(),
      Key,
      UpdateExpression: 'SET publicName = :n',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':n': publicName },
    },
  });
  await db().send(new TransactWriteCommand({ TransactItems: [update(byId(wa.id)), update(byUrl(wa.address))] }));
}

// Unrevoked keys are counted on the wallet address's record (`activeKeys`) in the same
// transaction as each key, so that racing additions cannot pass MAX_ACTIVE_KEYS.
export async function insertKey(address: string, key: WalletAddressKey): Promise<void> {
  const failed = await commit([
    {
      // revokedAt is absent until revocation, so that the revocation can set it once.
      Put: { TableName: TABLE(), Item: { ...keyOf(address, key.kid), ...key, revokedAt: undefined }, ConditionExpression: 'attribute_not_exists(pk)' },
    },
    {
      Update: {
        TableName: TABLE(),
        Key: byUrl(address),
        UpdateExpression: 'SET activeKeys = if_not_exists(activeKeys, :zero) + :one',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(activeKeys) OR activeKeys < :max)',
        ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':max': MAX_ACTIVE_KEYS },
      },
    },
  ]);
  if (failed.includes(0)) throw new DomainError('conflict', 'key_exists', `This wallet address already has a key with kid ${key.kid}`);
  if (failed.includes(1)) {
    throw new DomainError(
      'conflict',
      'too_many_keys',
      `This wallet address already has ${MAX_ACTIVE_KEYS} unrevoked keys, the most it can publish; revoke one first`,
    );
  }
}

// The wallet address record and its keys, in one query of the URL's partition.
export async function findWithKeys(address: string): Promise<{ wallet?: WalletAddress; keys: WalletAddressKey[] }> {
  const items = await queryAll({ TableName: TABLE(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `WAURL#${address}` } });
  const wallet = items.find((i) => i.sk === 'WA');
  return {
    wallet: wallet && toWallet(wallet),
    keys: items.filter((i) => String(i.sk).startsWith('KEY#')).map((i) => toKey(i)),
  };
}

export async function revokeKey(address: string, kid: string, at: string): Promise<WalletAddressKey | undefined> {
  // A failure is the key's own condition (unknown, or revoked already): nothing else can fail.
  await commit([
    {
      Update: {
        TableName: TABLE(),
        Key: keyOf(address, kid),
        UpdateExpression: 'SET revokedAt = :at',
        ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(revokedAt)',
        ExpressionAttributeValues: { ':at': at },
      },
    },
    { Update: { TableName: TABLE(), Key: byUrl(address), UpdateExpression: 'ADD activeKeys :minusOne', ExpressionAttributeValues: { ':minusOne': -1 } } },
  ]);
  // Revoked now, or before (then unchanged), or unknown.
  const { Item } = await db().send(new GetCommand({ TableName: TABLE(), Key: keyOf(address, kid), ConsistentRead: true }));
  return Item && toKey(Item);
}
