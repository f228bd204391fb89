import * as z from 'zod';
import { assetCode } from '../values';

// GET /ledger/check: each asset's accounts summed (ledger units, scale 20), which double entry keeps
// at zero; a non-zero account whose asset cannot be told (its record is gone) is listed apart.
export const ledgerCheck = z.object({
  balanced: z.boolean(),
  checkedAt: z.iso.datetime(),
  accounts: z.int().describe('The accounts with a non-zero balance that were read'),
  assets: z.array(
    z.object({
      assetId: z.uuid(),
      assetCode,
      assetScale: z.int(),
      accounts: z.int(),
      sum: z.string().describe('The sum of the asset’s balances in ledger units (scale 20): "0" when balanced'),
      balanced: z.boolean(),
    }),
  ),
  unattributed: z.array(z.object({ account: z.string(), balance: z.string() })),
});
export type LedgerCheck = z.infer<typeof ledgerCheck>;
