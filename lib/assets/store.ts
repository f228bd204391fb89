import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db } from '../db';
import { type Page, queryNewestFirst, shardKeys, shardOf, type TransactItem } from '../table';
import type { Asset } from './schemas';

// Each asset is stored twice: under its code (which makes the code unique and makes look-ups by
// code one read) and under its id, which the Lists index lists, newest first, spread over a few
// partitions. An asset never changes after its creation.
const byId = (id: string) => ({ pk: `ASSET#${id}`, sk: 'ASSET' });
const byCode = (code: string) => ({ pk: `ASSETCODE#${code}`, sk: 'ASSET' });
const LIST = 'ASSETS';
const LIST_SHARDS = 4;
// The asset's partition, which holds its outbox items too.
export const partition = (id: string) => byId(id).pk;

const toAsset = (i: Record<string, any>): Asset => ({
  id: i.id,
  code: i.code,
  scale: i.scale,
  ...(i.liquidityThreshold !== undefined && { liquidityThreshold: i.liquidityThreshold }),
  createdAt: i.createdAt,
});

// The items that create an asset; the first fails its condition when the code is taken.
export function insertAsset(asset: Asset): TransactItem[] {
  const listed = { listPk: `${LIST}#${shardOf(asset.id, LIST_SHARDS)}`, listSk: `${asset.createdAt}#${asset.id}` };
  return [
    { Put: { TableName: config.MAIN_TABLE, Item: { ...byCode(asset.code), ...asset }, ConditionExpression: 'attribute_not_exists(pk)' } },
    { Put: { TableName: config.MAIN_TABLE, Item: { ...byId(asset.id), ...asset, ...listed }, ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
}

export async function findAsset(id: string): Promise<Asset | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: config.MAIN_TABLE, Key: byId(id) }));
  return Item && toAsset(Item);
}

export async function findAssetByCode(code: string): Promise<Asset | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: config.MAIN_TABLE, Key: byCode(code) }));
  return Item && toAsset(Item);
}

export async function listAssets(limit: number, cursor?: string): Promise<Page<Asset>> {
  const page = await queryNewestFirst({
    table: config.MAIN_TABLE,
    index: 'Lists',
    partitionKey: 'listPk',
    sortKey: 'listSk',
    partitions: shardKeys(LIST, LIST_SHARDS),
    limit,
    cursor,
  });
  return { items: page.items.map(toAsset), nextCursor: page.nextCursor };
}
