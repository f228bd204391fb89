import * as z from 'zod';
import { assetCode } from '../shared/values';

// A peer-scoped rate names its peer by id (POST /peers).
export const peerId = z.uuid('must be the id of a peer');
const positiveRate = z.number().positive().finite();
// Pushed rates are stored as DynamoDB numbers: keep them to a range that holds exactly.
const pushedRate = z.number().min(1e-12, 'must be at least 1e-12').max(1e12, 'must be at most 1e12');
const MAX_TTL_SECS = 366 * 24 * 3600;

export const pushRateBody = z
  .strictObject({
    peerId: peerId.optional(),
    sourceAssetCode: assetCode,
    destinationAssetCode: assetCode,
    rate: pushedRate,
    rateTtlSecs: z.number().positive().max(MAX_TTL_SECS).optional(),
  })
  .refine((r) => r.sourceAssetCode !== r.destinationAssetCode, {
    path: ['destinationAssetCode'],
    message: 'must differ from sourceAssetCode (the rate between one code and itself is always 1)',
  });
export type PushRate = z.infer<typeof pushRateBody>;

export const rateQuery = z.strictObject({
  sourceAssetCode: assetCode,
  destinationAssetCode: assetCode,
  peerId: peerId.optional(),
});
export type RateQuery = z.infer<typeof rateQuery>;

export const rate = z.object({
  sourceAssetCode: assetCode,
  destinationAssetCode: assetCode,
  peerId: z.string().optional(),
  rate: z.number(),
  origin: z.enum(['pushed', 'pulled', 'identity']),
  expiresAt: z.iso.datetime().nullable(),
});
export type Rate = z.infer<typeof rate>;

// What the FSP's rates endpoint must answer (the specification's pull model).
export const ratesDocument = z.object({
  base: z.string(),
  rates: z.record(z.string(), positiveRate),
});
