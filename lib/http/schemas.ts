import * as z from 'zod';

// Schemas every route family shares.
export const assetCode = z.string().regex(/^[A-Z0-9]{3,12}$/, 'must be 3 to 12 upper-case letters or digits');

// An amount's value: a non-negative integer in the asset's smallest unit, as a string.
export const amountValue = z.string().regex(/^(0|[1-9]\d{0,37})$/, 'must be a non-negative integer string');

export const idParams = z.object({ id: z.uuid() });

export const pageQuery = z.strictObject({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  cursor: z.string().max(2048).optional(),
});

export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });

// Free-form data the FSP attaches to payment intents and payments.
export const metadata = z
  .record(z.string(), z.unknown())
  .refine((m) => JSON.stringify(m).length <= 4096, 'must be at most 4096 bytes of JSON')
  .optional();
