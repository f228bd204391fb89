import { randomUUID } from 'node:crypto';
import { amountOf, fromLedger, toLedger } from '../amounts';
import { event } from '../events';
import { account, balanceOf, moveFunds } from '../ledger';
import { ledgerErrors } from '../ledger/errors';
import { logger } from '../log';
import type { Node } from '../node';
import { scoped } from '../store';
import { commit } from '../tx';
import { assetErrors } from './errors';
import type { Asset, CreateAsset } from './schemas';
import { findAsset, findAssetByCode, insertAsset, listAssets, partition } from './store';

export { findAssetByCode, listAssets };

// Assets never change once created, so this container keeps what it read (never a miss).
const cache = new Map<string, Asset>();

export async function createAsset(node: Node, input: CreateAsset): Promise<Asset> {
  if (input.liquidityThreshold !== undefined) toLedger(BigInt(input.liquidityThreshold), input.scale, 'liquidityThreshold');
  const asset: Asset = {
    id: randomUUID(),
    code: input.code,
    scale: input.scale,
    ...(input.liquidityThreshold !== undefined && { liquidityThreshold: input.liquidityThreshold }),
    createdAt: new Date().toISOString(),
  };
  if ((await commit(node, insertAsset(node, asset))).includes('asset_exists')) {
    throw assetErrors.exists(asset.code);
  }
  return asset;
}

export const liquidityOf = async (node: Node, asset: Asset): Promise<bigint> => fromLedger(await balanceOf(node, account.liquidity(asset.id)), asset.scale);

export async function getAssetWithLiquidity(node: Node, id: string) {
  const asset = await getAsset(node, id);
  return { ...asset, liquidity: amountOf(await liquidityOf(node, asset), asset) };
}

// Deposits move money from the asset's settlement account into its liquidity; withdrawals back.
export async function moveLiquidity(node: Node, id: string, value: string, direction: 'deposit' | 'withdrawal', idempotencyKey?: string) {
  const asset = await getAsset(node, id);
  const units = toLedger(BigInt(value), asset.scale, 'amount');
  if ((await moveFunds(node, account.liquidity(id), id, units, direction, { type: 'asset', id }, idempotencyKey)) === 'insufficient') {
    throw ledgerErrors.insufficientLiquidity(`Asset ${asset.code}`, value, asset.scale);
  }
  return getAssetWithLiquidity(node, id);
}

export async function getAsset(node: Node, id: string): Promise<Asset> {
  const cached = cache.get(scoped(node, id)); // a tenant's assets are its own
  if (cached) return cached;
  const asset = await findAsset(node, id);
  if (!asset) throw assetErrors.notFound(id);
  if (cache.size >= 1000) cache.delete(cache.keys().next().value!);
  cache.set(scoped(node, id), asset);
  return asset;
}

// asset.liquidity_low, once, when taking `taken` (ledger units) brought the asset's liquidity below
// its threshold. A failed check is logged, never thrown: the money has moved already.
export async function noteLiquidityTaken(node: Node, assetId: string, taken: bigint): Promise<void> {
  try {
    const asset = await getAsset(node, assetId);
    if (asset.liquidityThreshold === undefined) return;
    const threshold = toLedger(BigInt(asset.liquidityThreshold), asset.scale);
    const after = await balanceOf(node, account.liquidity(assetId));
    if (after < threshold && after + taken >= threshold) {
      const liquidity = amountOf(fromLedger(after, asset.scale), asset);
      await commit(node, [], [event(partition(node, asset.id), 'asset.liquidity_low', { ...asset, liquidity })]);
    }
  } catch (error) {
    logger.warn('Liquidity check failed', { assetId, error: (error as Error).message });
  }
}
