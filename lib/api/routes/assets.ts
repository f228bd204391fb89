// The Admin API's routes of the tag Assets, each declared once (./route.ts says what a declaration holds).

import * as z from 'zod';
import { assetErrors } from '../../assets/errors';
import { asset, assetWithLiquidity, createAssetBody, liquidityBody, liquidityWithdrawalBody, updateAssetBody } from '../../assets/schemas';
import { ledgerErrors } from '../../ledger/errors';
import { ledgerCheck, ledgerTransfer, transfersQuery } from '../../ledger-check/schemas';
import { withdrawalErrors } from '../../liquidity-withdrawals/errors';
import { liquidityWithdrawal } from '../../liquidity-withdrawals/schemas';
import { commonErrors } from '../../shared/errors';
import { pageQuery } from '../../shared/values';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, idParams, page } from './route';

export const assetPage = page(asset);
export const ledgerTransferPage = page(ledgerTransfer);
export const liquidityWithdrawalPage = page(liquidityWithdrawal);
export const assetLiquidityWithdrawn = z.union([assetWithLiquidity, liquidityWithdrawal]);

export const assetsRoutes = declareRoutes({
  createAsset: {
    tag: 'Assets',
    method: 'post',
    path: '/assets',
    summary: 'Create an asset',
    body: createAssetBody,
    status: 201,
    response: asset,
    problems: [assetErrors.exists],
    transactional: true,
    functionName: 'assetsCreate',
    handler: 'assets/create',
    role: 'AssetsCreateRole',
    operation: { domain: 'assets', name: 'createAsset' },
  },
  listAssets: {
    tag: 'Assets',
    method: 'get',
    path: '/assets',
    summary: 'List assets',
    query: pageQuery,
    status: 200,
    response: assetPage,
    functionName: 'assetsList',
    handler: 'assets/list',
    role: 'AdminListRole',
  },
  checkLedger: {
    tag: 'Assets',
    method: 'get',
    path: '/ledger/check',
    summary: "Check that every asset's accounts sum to zero",
    description:
      'Sums the balances of each asset (its liquidity, settlement, fees, intents, payments, peers, holds and withdrawals held) server-side. A back-office check: it scans the main table, so its cost grows with the table.',
    status: 200,
    response: ledgerCheck,
    functionName: 'ledgerCheck',
    handler: 'ledger/check',
    role: 'LedgerCheckRole',
    operation: { domain: 'ledger-check', name: 'checkLedger' },
  },
  listLedgerTransfers: {
    tag: 'Assets',
    method: 'get',
    path: '/ledger/transfers',
    summary: "List an account's transfers, newest first",
    description:
      'Each transfer that debited or credited the account (one of its legs), with what it moved for this account; they sum to its balance. The account is named as GET /ledger/check names it; a split account (settlement, liquidity, a peer) is one account. Transfers are listed from the version that began keeping the history.',
    query: transfersQuery,
    status: 200,
    response: ledgerTransferPage,
    problems: [ledgerErrors.unknownAccount],
    functionName: 'ledgerTransfers',
    handler: 'ledger/transfers',
    role: 'LedgerTransfersRole',
  },
  getAsset: {
    tag: 'Assets',
    method: 'get',
    path: '/assets/{id}',
    summary: 'Get an asset and its liquidity',
    params: idParams,
    status: 200,
    response: assetWithLiquidity,
    problems: [assetErrors.notFound],
    functionName: 'assetsGet',
    handler: 'assets/get',
    role: 'AdminBalanceReadRole',
    operation: { domain: 'assets', name: 'getAssetWithLiquidity' },
  },
  updateAsset: {
    tag: 'Assets',
    method: 'patch',
    path: '/assets/{id}',
    summary: 'Change an asset',
    description:
      'Its `liquidityThreshold`, `sendingFee` or `receivingFee` (null clears one). A fee change applies to quotes and payment intents made after it; those made before keep the fee they were made with.',
    params: idParams,
    body: updateAssetBody,
    status: 200,
    response: asset,
    problems: [assetErrors.notFound, assetErrors.changed],
    transactional: true,
    functionName: 'assetsUpdate',
    handler: 'assets/update',
    role: 'AssetsUpdateRole',
    operation: { domain: 'assets', name: 'updateAsset' },
  },
  depositAssetLiquidity: {
    tag: 'Assets',
    method: 'post',
    path: '/assets/{id}/liquidity',
    summary: 'Deposit liquidity',
    description: "The amount is at the asset's scale.",
    params: idParams,
    body: liquidityBody,
    status: 200,
    response: assetWithLiquidity,
    problems: [assetErrors.notFound, ledgerErrors.balanceTooLarge],
    transactional: true,
    functionName: 'assetsLiquidityDeposit',
    handler: 'assets/liquidity-deposit',
    role: 'AdminLiquidityRole',
  },
  withdrawAssetLiquidity: {
    tag: 'Assets',
    method: 'post',
    path: '/assets/{id}/liquidity-withdrawals',
    summary: 'Withdraw liquidity',
    description:
      "The amount is at the asset's scale. Answers the asset with its liquidity after it; with `twoPhase: true`, the withdrawal, " +
      '`pending`: its amount is held until it is posted or voided (`/liquidity-withdrawals/{id}`), or voided by ' +
      'LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS.',
    params: idParams,
    body: liquidityWithdrawalBody,
    status: 200,
    response: assetLiquidityWithdrawn,
    problems: [assetErrors.notFound, ledgerErrors.insufficientLiquidity, ledgerErrors.balanceTooLarge, ledgerErrors.concurrentWithdrawal],
    transactional: true,
    functionName: 'assetsLiquidityWithdraw',
    handler: 'assets/liquidity-withdraw',
    role: 'AdminLiquidityRole',
  },
  listLiquidityWithdrawals: {
    tag: 'Assets',
    method: 'get',
    path: '/liquidity-withdrawals',
    summary: 'List the pending two-phase liquidity withdrawals, newest first',
    description: 'What is still held, to post or void; a posted or voided withdrawal leaves the list (read it by its id).',
    query: pageQuery,
    status: 200,
    response: liquidityWithdrawalPage,
    functionName: 'liquidityWithdrawalsList',
    handler: 'liquidity-withdrawals/list',
    role: 'AdminRecordsListRole',
  },
  getLiquidityWithdrawal: {
    tag: 'Assets',
    method: 'get',
    path: '/liquidity-withdrawals/{id}',
    summary: 'Get a two-phase liquidity withdrawal',
    params: idParams,
    status: 200,
    response: liquidityWithdrawal,
    problems: [withdrawalErrors.notFound],
    functionName: 'liquidityWithdrawalsGet',
    handler: 'liquidity-withdrawals/get',
    role: 'AdminReadRole',
    operation: { domain: 'liquidity-withdrawals', name: 'getWithdrawal' },
  },
  postLiquidityWithdrawal: {
    tag: 'Assets',
    method: 'post',
    path: '/liquidity-withdrawals/{id}/post',
    summary: 'Post a pending liquidity withdrawal',
    description: "Its amount leaves the ledger (to the asset's settlement account). 409 once it is posted or voided, or past its timeout.",
    params: idParams,
    status: 200,
    response: liquidityWithdrawal,
    problems: [withdrawalErrors.notFound, commonErrors.invalidState, ledgerErrors.balanceTooLarge],
    transactional: true,
    rowAction: true,
    functionName: 'liquidityWithdrawalsPost',
    handler: 'liquidity-withdrawals/post',
    role: 'AdminLiquidityRole',
    operation: { domain: 'liquidity-withdrawals', name: 'postWithdrawal' },
  },
  voidLiquidityWithdrawal: {
    tag: 'Assets',
    method: 'post',
    path: '/liquidity-withdrawals/{id}/void',
    summary: 'Void a pending liquidity withdrawal',
    description: "Its amount goes back to the asset's liquidity or the peer's. 409 once it is posted or voided.",
    params: idParams,
    status: 200,
    response: liquidityWithdrawal,
    problems: [withdrawalErrors.notFound, commonErrors.invalidState, ledgerErrors.balanceTooLarge],
    transactional: true,
    rowAction: true,
    functionName: 'liquidityWithdrawalsVoid',
    handler: 'liquidity-withdrawals/void',
    role: 'AdminLiquidityRole',
    operation: { domain: 'liquidity-withdrawals', name: 'voidWithdrawal' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const assetsRoles = {
  AssetsCreateRole: {
    MainTable: ['GetItem', 'PutItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
  // GET /ledger/check: a Scan of the accounts, the assets' list, the records that hold accounts and every peer
  LedgerCheckRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'Query', 'Scan'],
    'MainTable/index': ['Query'],
    secrets: ADMIN_API_SECRETS,
  },
  // GET /ledger/transfers: the record that owns the account, then its history's partitions (Lists, Lists2)
  LedgerTransfersRole: {
    MainTable: ['GetItem', 'Query'],
    'MainTable/index': ['Query'],
    secrets: ADMIN_API_SECRETS,
  },
  AssetsUpdateRole: {
    MainTable: ['GetItem', 'PutItem'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;
