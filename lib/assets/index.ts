import { account, balanceOf, moveFunds } from '../ledger';
import { ledgerErrors } from '../ledger/errors';
import { event } from '../platform/events';
import { newId } from '../platform/ids';
import { logger } from '../platform/log';
import { scoped } from '../platform/store';
import { commit } from '../platform/tx';
import { amountOf, fromLedger, toLedger } from '../shared/amounts';
import type { Node } from '../shared/node';
import { assetErrors } from './errors';
import type { Asset, CreateAsset, FeeSchedule, UpdateAsset } from './schemas';
import { findAsset, findAssetByCode, insertAsset, listAssets, partition, replaceAsset, viewOf } from './store';

export { amountWithin, feeOn, feeTotal } from './rules';
export { assetLookup } from './store';
export { findAssetByCode, listAssets };

export async function createAsset(node: Node, input: CreateAsset): Promise<Asset> {
  if (input.liquidityThreshold !== undefined) toLedger(BigInt(input.liquidityThreshold), input.scale, 'liquidityThreshold');
  const asset: Asset = {
    id: newId(),
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
  const asset = await findAsset(node, id);
  if (!asset) throw assetErrors.notFound(id);
  return viewOf(asset);
}

// The fees an asset charges now, read afresh (a quote or an intent keeps what it was made with).
export const feesOf = async (node: Node, id: string): Promise<{ sendingFee?: FeeSchedule; receivingFee?: FeeSchedule }> => getAsset(node, id);

// Sets what the body names (null clears it). Concurrent changes are serialized: each is applied to
// the asset as read, on condition that no other change came between, and read again if one did.
const UPDATE_ATTEMPTS = 5;
export async function updateAsset(node: Node, id: string, input: UpdateAsset): Promise<Asset> {
  for (let attempt = 1; ; attempt++) {
    const was = await findAsset(node, id);
    if (!was) throw assetErrors.notFound(id);
    const now: Asset = viewOf(was);
    for (const field of ['liquidityThreshold', 'sendingFee', 'receivingFee'] as const) {
      if (input[field] === null) delete now[field];
      else if (input[field] !== undefined) Object.assign(now, { [field]: input[field] });
    }
    if (now.liquidityThreshold !== undefined) toLedger(BigInt(now.liquidityThreshold), now.scale, 'liquidityThreshold');
    if (now.sendingFee) toLedger(BigInt(now.sendingFee.fixed), now.scale, 'sendingFee.fixed');
    if (now.receivingFee) toLedger(BigInt(now.receivingFee.fixed), now.scale, 'receivingFee.fixed');
    const refusals = await commit(node, replaceAsset(node, was, now), [event(partition(node, id), 'asset.updated', now)]);
    if (!refusals.length) {
      thresholds.delete(scoped(node, id));
      return now;
    }
    if (attempt === UPDATE_ATTEMPTS) throw assetErrors.changed(id);
  }
}

// What the payment path asks on every cross-asset payment, kept in this container for a few
// seconds: a threshold changed elsewhere (another container) takes effect here within
// ASSET_CACHE_MS, one changed here at once.
const ASSET_CACHE_MS = 10_000;
const thresholds = new Map<string, { asset: Asset; until: number }>(); // by scoped id: a tenant's assets are its own
async function recentAsset(node: Node, id: string): Promise<Asset> {
  const key = scoped(node, id);
  const kept = thresholds.get(key);
  if (kept && kept.until > Date.now()) return kept.asset;
  const asset = await getAsset(node, id);
  if (thresholds.size >= 1000) thresholds.delete(thresholds.keys().next().value!);
  thresholds.set(key, { asset, until: Date.now() + ASSET_CACHE_MS });
  return asset;
}

// asset.liquidity_low, once, when taking `taken` (ledger units) brought the asset's liquidity below
// its threshold. A failed check is logged, never thrown: the money has moved already.
export async function noteLiquidityTaken(node: Node, assetId: string, taken: bigint): Promise<void> {
  try {
    const asset = await recentAsset(node, assetId);
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
