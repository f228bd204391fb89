import { errorCatalog } from '../shared/errors';

export const ledgerErrors = errorCatalog({
  insufficientLiquidity: {
    code: 'insufficient_liquidity',
    status: 422,
    title: 'The asset or peer holds less liquidity than the withdrawal',
    detail: (holder: string, value: string, scale: number) => `${holder} has less liquidity than ${value} (scale ${scale})`,
  },
  // A write that would take a ledger balance past the 38 digits a DynamoDB number holds.
  balanceTooLarge: {
    code: 'balance_too_large',
    status: 422,
    title: 'A balance would pass the 38 digits the ledger holds',
    detail: () => 'This would take a balance past the 38 digits the ledger holds (at its scale of 20); use a smaller amount',
  },
  // GET /ledger/transfers for an account whose asset, peer, intent or payment this tenant does not have.
  unknownAccount: {
    code: 'account_not_found',
    status: 404,
    title: 'No account with this id',
    detail: (id: string) => `No account ${id}: the asset, peer, payment intent or payment it belongs to does not exist`,
  },
  concurrentWithdrawal: {
    code: 'concurrent_withdrawal',
    status: 409,
    title: 'The balance changed during the withdrawal; retry',
    detail: () => 'The balance changed during the withdrawal; retry',
  },
});
