import * as z from 'zod';
import { amount } from '../shared/amounts';

// A two-phase liquidity withdrawal: the amount is held out of an asset's liquidity or a peer's
// credit line, then posted (it leaves the ledger, to the asset's settlement account) or voided
// (it goes back), by the FSP or, unposted at `expiresAt`, by the timeout.
export const withdrawalStates = ['pending', 'posted', 'voided'] as const;
export type WithdrawalState = (typeof withdrawalStates)[number];

export const liquidityWithdrawal = z.object({
  id: z.uuid(),
  state: z.enum(withdrawalStates),
  assetId: z.uuid(),
  // The peer whose credit line it was taken from; null: the asset's liquidity.
  peerId: z.uuid().nullable(),
  amount,
  // Unposted by then, it is voided (LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS after its creation).
  expiresAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
  postedAt: z.iso.datetime().optional(),
  voidedAt: z.iso.datetime().optional(),
  // Who voided it: a request (POST /liquidity-withdrawals/{id}/void) or the timeout.
  voidedBy: z.enum(['request', 'timeout']).optional(),
});
export type LiquidityWithdrawal = z.infer<typeof liquidityWithdrawal>;
