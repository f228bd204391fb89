import * as z from 'zod';

export const assetCode = z.string().regex(/^[A-Z0-9]{3,12}$/, 'must be 3 to 12 upper-case letters or digits');

export const createAssetBody = z.strictObject({
  code: assetCode,
  scale: z.int().min(0).max(255),
});
export type CreateAsset = z.infer<typeof createAssetBody>;

export const asset = z.object({
  id: z.uuid(),
  code: assetCode,
  scale: z.int(),
  createdAt: z.iso.datetime(),
});
export type Asset = z.infer<typeof asset>;
