import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db';
import type { Node } from '../node';
import { type Page, queryNewestFirst, scoped, shardKeys, shardOf } from '../store';
import type { Write } from '../tx';
import type { Asset } from './schemas';

// Each asset is stored twice: under its code (which makes the code unique and makes look-ups by
// code one read) and under its id, which the Lists index lists, newest first, spread over a few
// partitions. An asset never changes after its creation.
const byId = (node: Node, id: string) => ({ pk: scoped(node, `ASSET#${id}`), sk: 'ASSET' });
const byCode = (node: Node, code: string) => ({ pk: scoped(node, `ASSETCODE#${code}`), sk: 'ASSET' });
const LIST = 'ASSETS';
const LIST_SHARDS = 4;
// The asset's partition, which holds its outbox items too.
export const partition = (node: Node, id: string) => byId(node, id).pk;

const toAsset = (i: Record<string, any>): Asset => ({
  id: i.id,
  code: i.code,
  scale: i.scale,
  ...(i.liquidityThreshold !== undefined && { liquidityThreshold: i.liquidityThreshold }),
  createdAt: i.createdAt,
});

// The items that create an asset; the code's is refused ('asset_exists') when the code is taken.
export function insertAsset(node: Node, asset: Asset): Write[] {
  const listed = { listPk: scoped(node, `${LIST}#${shardOf(asset.id, LIST_SHARDS)}`), listSk: `${asset.createdAt}#${asset.id}` };
  return [
    {
      refusal: 'asset_exists',
      Put: { TableName: node.tables.main, Item: { ...byCode(node, asset.code), ...asset }, ConditionExpression: 'attribute_not_exists(pk)' },
    },
    { Put: { TableName: node.tables.main, Item: { ...byId(node, asset.id), ...asset, ...listed }, ConditionExpression: 'attribute_not_exists(pk)' } },
  ];
}

export async function findAsset(node: Node, id: string): Promise<Asset | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: byId(node, id) }));
  return Item && toAsset(Item);
}

export async function findAssetByCode(node: Node, code: string): Promise<Asset | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: byCode(node, code) }));
  return Item && toAsset(Item);
}

export async function listAssets(node: Node, limit: number, cursor?: string): Promise<Page<Asset>> {
  const page = await queryNewestFirst({
    table: node.tables.main,
    index: 'Lists',
    partitionKey: 'listPk',
    sortKey: 'listSk',
    partitions: shardKeys(node, LIST, LIST_SHARDS),
    limit,
    cursor,
  });
  return { items: page.items.map(toAsset), nextCursor: page.nextCursor };
}
