import * as z from 'zod';
import { amountValue, assetCode } from '../values';

export const createAssetBody = z.strictObject({
  code: assetCode,
  scale: z.int().min(0).max(255),
  // Below this liquidity (at the asset's scale) the service emits asset.liquidity_low.
  liquidityThreshold: amountValue.optional(),
});
export type CreateAsset = z.infer<typeof createAssetBody>;

export const asset = z.object({
  id: z.uuid(),
  code: assetCode,
  scale: z.int(),
  liquidityThreshold: z.string().optional(),
  createdAt: z.iso.datetime(),
});
export type Asset = z.infer<typeof asset>;

export const liquidityBody = z.strictObject({ amount: amountValue.refine((v) => v !== '0', 'must be greater than 0') });
// An asset's or a peer's withdrawal: `twoPhase` holds the amount until it is posted or voided
// (lib/liquidity-withdrawals); without it, it leaves at once.
export const liquidityWithdrawalBody = liquidityBody.extend({ twoPhase: z.boolean().optional() });

export const assetWithLiquidity = asset.extend({
  liquidity: z.object({ value: z.string(), assetCode, assetScale: z.int() }),
});
