import { GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db';
import { config } from '../config';
import { DomainError } from '../errors';
import { decodeCursor, encodeCursor, failedConditions } from '../table';
import { account, openAccount } from '../ledger';
import type { Asset } from './schemas';

// Each asset is stored twice: under its id (in the ASSET partition, which lists them) and under
// its code (which makes the code unique and makes look-ups by code one read).
const byId = (id: string) => ({ pk: 'ASSET', sk: id });
const byCode = (code: string) => ({ pk: `ASSETCODE#${code}`, sk: 'ASSET' });
// The partition of an asset's outbox items.
export const partition = (id: string) => `ASSET#${id}`;
const toAsset = (i: Record<string, any>): Asset => ({
  id: i.id,
  code: i.code,
  scale: i.scale,
  ...(i.liquidityThreshold !== undefined && { liquidityThreshold: i.liquidityThreshold }),
  createdAt: i.createdAt,
});

export async function insertAsset(asset: Asset): Promise<void> {
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: config.MAIN_TABLE, Item: { ...byCode(asset.code), ...asset }, ConditionExpression: 'attribute_not_exists(pk)' } },
          { Put: { TableName: config.MAIN_TABLE, Item: { ...byId(asset.id), ...asset }, ConditionExpression: 'attribute_not_exists(pk)' } },
          // Every asset has a liquidity account (never negative) and a settlement account, which
          // stands for money outside the ledger and so may go negative.
          openAccount(account.liquidity(asset.id)),
          openAccount(account.settlement(asset.id), { allowNegative: true }),
        ],
      }),
    );
  } catch (e) {
    if (failedConditions(e)?.includes(0)) {
      throw new DomainError('conflict', 'asset_exists', `An asset with code ${asset.code} already exists`);
    }
    throw e;
  }
}

export async function findAsset(id: string): Promise<Asset | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: config.MAIN_TABLE, Key: byId(id) }));
  return Item && toAsset(Item);
}

export async function findAssetByCode(code: string): Promise<Asset | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: config.MAIN_TABLE, Key: byCode(code) }));
  return Item && toAsset(Item);
}

export async function listAssets(limit: number, cursor?: string): Promise<{ items: Asset[]; nextCursor: string | null }> {
  const res = await db().send(
    new QueryCommand({
      TableName: config.MAIN_TABLE,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': 'ASSET' },
      Limit: limit,
      ExclusiveStartKey: decodeCursor(cursor, 'ASSET'),
    }),
  );
  return { items: (res.Items ?? []).map(toAsset), nextCursor: encodeCursor(res.LastEvaluatedKey) };
}
