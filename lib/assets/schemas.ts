import * as z from 'zod';
import { amountValue, assetCode } from '../shared/values';

// A fee an asset charges on a payment: a fixed amount (minor units, at the asset's scale) plus
// basis points of the payment's amount (./rules.ts computes it).
export const feeSchedule = z.strictObject({
  fixed: amountValue,
  basisPoints: z.int().min(0).max(10000),
});
export type FeeSchedule = z.infer<typeof feeSchedule>;

export const createAssetBody = z.strictObject({
  code: assetCode,
  scale: z.int().min(0).max(255),
  // Below this liquidity (at the asset's scale) the service emits asset.liquidity_low.
  liquidityThreshold: amountValue.optional(),
});
export type CreateAsset = z.infer<typeof createAssetBody>;

// PATCH /assets/{id}: each field given is set; null clears it.
export const updateAssetBody = z
  .strictObject({
    liquidityThreshold: amountValue.nullable().optional(),
    // Added to what a sender in this asset is debited.
    sendingFee: feeSchedule.nullable().optional(),
    // Taken from what a payment intent in this asset is credited.
    receivingFee: feeSchedule.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'must change something');
export type UpdateAsset = z.infer<typeof updateAssetBody>;

export const asset = z.object({
  id: z.uuid(),
  code: assetCode,
  scale: z.int(),
  liquidityThreshold: z.string().optional(),
  sendingFee: feeSchedule.optional(),
  receivingFee: feeSchedule.optional(),
  createdAt: z.iso.datetime(),
});
export type Asset = z.infer<typeof asset>;
// As stored: with the version a change is conditional on.
export type AssetRecord = Asset & { version?: number };

export const liquidityBody = z.strictObject({ amount: amountValue.refine((v) => v !== '0', 'must be greater than 0') });
// An asset's or a peer's withdrawal: `twoPhase` holds the amount until it is posted or voided
// (lib/liquidity-withdrawals); without it, it leaves at once.
export const liquidityWithdrawalBody = liquidityBody.extend({ twoPhase: z.boolean().optional() });

export const assetWithLiquidity = asset.extend({
  liquidity: z.object({ value: z.string(), assetCode, assetScale: z.int() }),
});
