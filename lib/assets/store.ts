import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../platform/db';
import { getOne, type Lookup, type Page, queryNewestFirst, scoped, shardKeys, shardOf } from '../platform/store';
import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';
import type { Asset, AssetRecord } from './schemas';

// Each asset is stored twice: under its code (which makes the code unique and makes look-ups by
// code one read) and under its id, which the Lists index lists, newest first, spread over a few
// partitions. A change (PATCH) replaces both items in one transaction, on condition that the
// asset's `version` is still the one read.
const byId = (node: Node, id: string) => ({ pk: scoped(node, `ASSET#${id}`), sk: 'ASSET' });
const byCode = (node: Node, code: string) => ({ pk: scoped(node, `ASSETCODE#${code}`), sk: 'ASSET' });
const LIST = 'ASSETS';
const LIST_SHARDS = 4;
// The asset's partition, which holds its outbox items too.
export const partition = (node: Node, id: string) => byId(node, id).pk;

const toAsset = (i: Record<string, any>): AssetRecord => ({
  id: i.id,
  code: i.code,
  scale: i.scale,
  ...(i.liquidityThreshold != null && { liquidityThreshold: i.liquidityThreshold }),
  ...(i.sendingFee != null && { sendingFee: { fixed: i.sendingFee.fixed, basisPoints: Number(i.sendingFee.basisPoints) } }),
  ...(i.receivingFee != null && { receivingFee: { fixed: i.receivingFee.fixed, basisPoints: Number(i.receivingFee.basisPoints) } }),
  createdAt: i.createdAt,
  ...(i.version !== undefined && { version: Number(i.version) }),
});
const listed = (node: Node, asset: Asset) => ({ listPk: scoped(node, `${LIST}#${shardOf(asset.id, LIST_SHARDS)}`), listSk: `${asset.createdAt}#${asset.id}` });

export const viewOf = ({ version, ...asset }: AssetRecord): Asset => asset;

declare module '../platform/tx' {
  interface RefusalsOf {
    assets: 'asset_exists' | 'asset_changed';
  }
}

// The items that create an asset; the code's is refused ('asset_exists') when the code is taken.
export function insertAsset(node: Node, asset: Asset): Write[] {
  return [
    {
      refusal: 'asset_exists',
      Put: { TableName: node.tables.main, Item: { ...byCode(node, asset.code), ...asset }, ConditionExpression: 'attribute_not_exists(pk)' },
    },
    {
      Put: {
        TableName: node.tables.main,
        Item: { ...byId(node, asset.id), ...asset, ...listed(node, asset) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
  ];
}

// The items that replace an asset as read with `now`; refused ('asset_changed') when another change
// came between (an asset never changed has none).
export function replaceAsset(node: Node, was: AssetRecord, now: Asset): Write[] {
  const unchanged =
    was.version === undefined
      ? { ConditionExpression: 'attribute_exists(pk) AND attribute_not_exists(version)' }
      : { ConditionExpression: 'version = :version', ExpressionAttributeValues: { ':version': was.version } };
  const item = { ...now, version: (was.version ?? 0) + 1 };
  return [
    { refusal: 'asset_changed', Put: { TableName: node.tables.main, Item: { ...byId(node, now.id), ...item, ...listed(node, now) }, ...unchanged } },
    { refusal: 'asset_changed', Put: { TableName: node.tables.main, Item: { ...byCode(node, now.code), ...item }, ...unchanged } },
  ];
}

// Read consistently: a change is seen by the next quote, intent or read.
export const assetLookup = (node: Node, id: string): Lookup<AssetRecord> => ({ table: node.tables.main, key: byId(node, id), read: toAsset });
export const findAsset = (node: Node, id: string) => getOne(assetLookup(node, id));

export async function findAssetByCode(node: Node, code: string): Promise<Asset | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: byCode(node, code) }));
  return Item && viewOf(toAsset(Item));
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
  return { items: page.items.map((i) => viewOf(toAsset(i))), nextCursor: page.nextCursor };
}
