import * as z from 'zod';
import { RESOURCE_TYPES, TRANSFER_KINDS } from '../ledger/rules';
import { amount } from '../shared/amounts';
import { assetCode, pageQuery } from '../shared/values';

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

// GET /ledger/transfers: an account's transfers, by the account's id as the check names it. A
// split account (settlement, liquidity, a peer's) is one account here, as its balance is.
const uuid = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
export const accountId = z
  .string()
  .regex(new RegExp(`^(?:(?:settlement|liquidity|fee|intent|payment|peer):${uuid}|(?:hold|withdrawal):${uuid}:${uuid})$`), 'is not an account id')
  .describe(
    'An account as GET /ledger/check names it: settlement:<asset id>, liquidity:<asset id>, fee:<asset id>, peer:<peer id>, intent:<payment intent id>, payment:<payment id>, hold:<payment id>:<asset id>, or withdrawal:<liquidity withdrawal id>:<asset id>',
  );
export const transfersQuery = pageQuery.extend({ account: accountId });

export const ledgerTransfer = z.object({
  id: z.string().describe('The transfer’s id (one transfer may have two legs, each in its accounts’ history)'),
  createdAt: z.iso.datetime(),
  kind: z.enum(TRANSFER_KINDS),
  resource: z.object({ type: z.enum(RESOURCE_TYPES), id: z.uuid() }).describe('What the transfer belongs to'),
  direction: z.enum(['debit', 'credit']).describe('debit: the amount left the account; credit: it came in'),
  amount: amount.describe('What the transfer moved for this account, at its asset’s scale'),
  units: z.string().describe('The same in ledger units (scale 20), as GET /ledger/check shows balances'),
  debitAccount: z.string(),
  creditAccount: z.string(),
});
export type LedgerTransfer = z.infer<typeof ledgerTransfer>;
