import { randomUUID } from 'node:crypto';
import { notFound } from '../errors';
import type { Asset, CreateAsset } from './schemas';
import { findAsset, findAssetByCode, insertAsset, listAssets } from './store';

export { listAssets, findAssetByCode };

export async function createAsset(input: CreateAsset): Promise<Asset> {
  const asset: Asset = { id: randomUUID(), code: input.code, scale: input.scale, createdAt: new Date().toISOString() };
  await insertAsset(asset);
  return asset;
}

export async function getAsset(id: string): Promise<Asset> {
  const asset = await findAsset(id);
  if (!asset) throw notFound('asset', id);
  return asset;
}
