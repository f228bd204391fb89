// The roles that more than one Admin route's function has (a route's own role is beside it in its tag's
// file); adminRoles gathers them all for serverless.yml (infra/serverless/admin-routes.cjs).
import type { FunctionRoles } from './route';

// Every signed route reads its secret, the operator's or a tenant's (whose record it reads in the main
// table); POST routes use Powertools idempotency (IdempotencyTable); every route but a GET records its
// signature once in the main table.
export const ADMIN_API_SECRETS = ['ADMIN_API_SECRET', 'tenants/*/ADMIN_API_SECRET'];

export const sharedRoles = {
  // GET a wallet address, an intent, a quote, a payment
  AdminReadRole: {
    MainTable: ['GetItem'],
    secrets: ADMIN_API_SECRETS,
  },
  // GET an asset or a peer, with its ledger balances
  AdminBalanceReadRole: {
    MainTable: ['GetItem', 'BatchGetItem'],
    secrets: ADMIN_API_SECRETS,
  },
  // GET /assets, /peers
  AdminListRole: {
    MainTable: ['GetItem', 'Query'],
    'MainTable/index': ['Query'],
    secrets: ADMIN_API_SECRETS,
  },
  // GET /wallet-addresses (a list, or one by its URL); a peer's reconciliation
  AdminListReadRole: {
    MainTable: ['GetItem', 'Query'],
    'MainTable/index': ['Query'],
    secrets: ADMIN_API_SECRETS,
  },
  // GET /payments, /payment-intents: a page of listing items, then its records at once
  AdminRecordsListRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'Query'],
    'MainTable/index': ['Query'],
    secrets: ADMIN_API_SECRETS,
  },
  // create a wallet address (counted in the tenant registry); create or revoke a key; approve or cancel an intent; cancel a payment
  AdminChangeRole: {
    MainTable: ['GetItem', 'PutItem', 'UpdateItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
  // ledger transfers: an asset's or a peer's liquidity in and out, an intent's or a payment's funds out, an intent completed short returning its local payments' credits
  AdminLiquidityRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;
