// The Admin API's routes, each once: what it is (method, path, schemas, status, answer, the
// errors it can give), what the signed stack does for it (lib/api/http/admin.ts) and the Lambda function
// that serves it with its role. The handlers take their spec from here, the OpenAPI document is
// built from it, and tests check serverless.yml, the handlers and the Bruno collection against it.
import * as z from 'zod';
import { assetErrors } from '../assets/errors';
import { asset, assetWithLiquidity, createAssetBody, liquidityBody, liquidityWithdrawalBody, updateAssetBody } from '../assets/schemas';
import { auditEvent, auditEventsQuery } from '../audit/schemas';
import { grant, grantsQuery } from '../auth-server/admin-schemas';
import { authErrors } from '../auth-server/errors';
import { ilpErrors } from '../ilp/errors';
import { ledgerErrors } from '../ledger/errors';
import { ledgerCheck, ledgerTransfer, transfersQuery } from '../ledger-check/schemas';
import { withdrawalErrors } from '../liquidity-withdrawals/errors';
import { liquidityWithdrawal } from '../liquidity-withdrawals/schemas';
import { intentErrors } from '../payment-intents/errors';
import { cancelIntentBody, createIntentBody, listIntentsQuery, paymentIntent } from '../payment-intents/schemas';
import { paymentErrors } from '../payments/errors';
import { createPaymentBody, listPaymentsQuery, payment } from '../payments/schemas';
import { peerErrors } from '../peers/errors';
import { createPeerBody, peer, peerWithLiquidity, reconciliation, reconciliationQuery, updatePeerBody } from '../peers/schemas';
import { quoteErrors } from '../quotes/errors';
import { createQuoteBody, quote } from '../quotes/schemas';
import { rateErrors } from '../rates/errors';
import { pushRateBody, rate, rateQuery } from '../rates/schemas';
import { amount } from '../shared/amounts';
import { type CatalogEntry, commonErrors } from '../shared/errors';
import type { Role } from '../shared/operators';
import { pageQuery } from '../shared/values';
import { tenantErrors } from '../tenants/errors';
import { createdTenant, createTenantBody, tenant, tenantParams, updateTenantBody } from '../tenants/schemas';
import { walletAddressErrors } from '../wallet-addresses/errors';
import {
  createWalletAddressBody,
  ed25519Jwk,
  keyParams,
  updateWalletAddressBody,
  walletAddress,
  walletAddressesQuery,
  walletAddressKey,
} from '../wallet-addresses/schemas';
import { webhookErrors } from '../webhooks/errors';
import { eventIdParams, listQuery, webhookEvent } from '../webhooks/schemas';
import { idParams, page } from './http/schemas';

export const tags = [
  { name: 'Assets', description: 'The currencies the FSP holds, each with the liquidity that pays out.' },
  { name: 'Wallet addresses', description: 'The accounts that send and receive, published over Open Payments.' },
  { name: 'Rates', description: 'Exchange rates: pushed by the FSP, or pulled from its rates endpoint and cached.' },
  { name: 'Payment intents', description: 'Payments a wallet address expects (Open Payments incoming payments).' },
  { name: 'Quotes', description: 'What a payment to an incoming payment will debit and deliver.' },
  { name: 'Payments', description: 'Outgoing payments made from quotes: funded by the FSP, then sent.' },
  { name: 'Peers', description: 'The nodes this one exchanges Interledger packets with, and the credit each has.' },
  { name: 'Grants', description: "What the FSP's users let Open Payments apps do: listed, and revoked." },
  { name: 'Webhook events', description: 'The events sent to the FSP, with every delivery attempt.' },
  { name: 'Audit events', description: 'What each operator signed in to the console did: who, with which role, when, to what, and the outcome.' },
  { name: 'Tenants', description: "The FSPs the deployment serves besides its operator's: the operator's alone to manage." },
  { name: 'Docs', description: 'This document.' },
] as const;

type Tag = (typeof tags)[number]['name'];

interface RouteEntry {
  tag: Tag;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  // An object, or one checked across its fields (z.preprocess into an object: queryFields).
  query?: z.ZodType;
  body?: z.ZodType;
  // What the route answers on success (the handler returns the body only).
  status: 200 | 201 | 202 | 204;
  response?: z.ZodType;
  // The errors of the catalogs this route can answer; those every route shares are added by
  // openApiDocument(), and each is documented under its catalog's status.
  problems?: CatalogEntry[];
  // Every write of this route goes through lib/platform/tx commit(): the signature's replay guard then
  // rides in that transaction instead of costing a round trip of its own.
  transactional?: true;
  // The operator's alone (the tenants' routes): a tenant's request is 403 operator_only.
  operatorOnly?: true;
  // Its answer holds secrets, which the idempotency layer must not store: an Idempotency-Key is
  // refused (400), and the route makes a retry safe another way.
  answersSecrets?: true;
  // One of the actions an operator takes on a row (approve, cancel, withdraw, post, void, revoke):
  // the console's `operator` role may; other writes need `admin`, and reads `viewer`.
  rowAction?: true;
  // Unsigned: no signature, and none of the signed stack's problems.
  isPublic?: true;
  // Its function in serverless.yml, and that function's role (infra/roles.yml).
  functionName: string;
  role: string;
}

// The console's role a route needs (lib/shared/operators.ts): reads, a viewer's; row actions, an operator's;
// other writes, an admin's.
export const neededRole = (route: Pick<RouteEntry, 'method' | 'rowAction'>): Role =>
  route.method === 'get' ? 'viewer' : route.rowAction ? 'operator' : 'admin';

// A table entry with its operationId, which generated clients name their methods after: it never changes.
export type Route = RouteEntry & { id: string };

// Response shapes that only the Admin API names.
export const assetPage = page(asset);
export const walletAddressPage = page(walletAddress);
export const walletAddressOrPage = z.union([walletAddress, walletAddressPage]);
export const paymentIntentPage = page(paymentIntent);
export const paymentPage = page(payment);
export const walletAddressKeyList = z.object({ items: z.array(walletAddressKey) });
export const paymentIntentWithdrawal = paymentIntent.extend({ withdrawnAmount: amount });
export const paymentWithdrawal = payment.extend({ withdrawnAmount: amount });
export const peerPage = page(peer);
export const grantPage = page(grant);
export const ledgerTransferPage = page(ledgerTransfer);
// A withdrawal's answer: the asset's or peer's liquidity after it, or, two-phase, the withdrawal held.
export const liquidityWithdrawalPage = page(liquidityWithdrawal);
export const assetLiquidityWithdrawn = z.union([assetWithLiquidity, liquidityWithdrawal]);
export const peerLiquidityWithdrawn = z.union([peerWithLiquidity, liquidityWithdrawal]);
export const webhookEventPage = page(webhookEvent);
export const tenantPage = page(tenant);
export const auditEventPage = page(auditEvent);
export const openApiDocumentSchema = z.looseObject({ openapi: z.string() });

// Each entry keyed by its id, which it is given too.
const withIds = <T extends Record<string, RouteEntry>>(table: T) =>
  Object.fromEntries(Object.entries(table).map(([id, entry]) => [id, { ...entry, id }])) as { [K in keyof T]: T[K] & { id: K } };

export const routes = withIds({
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
    role: 'AssetsCreateRole',
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
    role: 'LedgerCheckRole',
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
    role: 'AdminBalanceReadRole',
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
    role: 'AssetsUpdateRole',
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
    role: 'AdminReadRole',
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
    role: 'AdminLiquidityRole',
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
    role: 'AdminLiquidityRole',
  },
  createWalletAddress: {
    tag: 'Wallet addresses',
    method: 'post',
    path: '/wallet-addresses',
    summary: 'Create a wallet address',
    body: createWalletAddressBody,
    status: 201,
    response: walletAddress,
    problems: [walletAddressErrors.exists, walletAddressErrors.underTenant, walletAddressErrors.baseChanged, assetErrors.unknown],
    transactional: true,
    functionName: 'walletAddressesCreate',
    role: 'AdminChangeRole',
  },
  findWalletAddress: {
    tag: 'Wallet addresses',
    method: 'get',
    path: '/wallet-addresses',
    summary: 'List wallet addresses, newest first, or find one by its URL',
    description:
      'Without `address`: a page of wallet addresses (`limit`, `cursor`). With `address`: the wallet address at that URL, matched in any ' +
      'letter case (it takes no `limit` or `cursor`).',
    query: walletAddressesQuery,
    status: 200,
    response: walletAddressOrPage,
    problems: [walletAddressErrors.notFound],
    functionName: 'walletAddressesFind',
    role: 'AdminListReadRole',
  },
  getWalletAddress: {
    tag: 'Wallet addresses',
    method: 'get',
    path: '/wallet-addresses/{id}',
    summary: 'Get a wallet address',
    params: idParams,
    status: 200,
    response: walletAddress,
    problems: [walletAddressErrors.notFound],
    functionName: 'walletAddressesGet',
    role: 'AdminReadRole',
  },
  updateWalletAddress: {
    tag: 'Wallet addresses',
    method: 'patch',
    path: '/wallet-addresses/{id}',
    summary: "Change a wallet address's public name, status, or whether its new payment intents wait for approval",
    description:
      'An `inactive` wallet address takes no new payment intents, quotes, payments, fundings, grants or packets ' +
      '(`wallet_address_inactive`); what is in flight finishes as it would. Each change emits `wallet_address.updated`.',
    params: idParams,
    body: updateWalletAddressBody,
    status: 200,
    response: walletAddress,
    problems: [walletAddressErrors.notFound],
    transactional: true,
    functionName: 'walletAddressesUpdate',
    role: 'WalletAddressesUpdateRole',
  },
  createWalletAddressKey: {
    tag: 'Wallet addresses',
    method: 'post',
    path: '/wallet-addresses/{id}/keys',
    summary: 'Register an Ed25519 public key',
    description: 'A public JWK (RFC 8037). A wallet address keeps at most 20 unrevoked keys.',
    params: idParams,
    body: ed25519Jwk,
    status: 201,
    response: walletAddressKey,
    problems: [walletAddressErrors.notFound, walletAddressErrors.keyExists, walletAddressErrors.tooManyKeys],
    transactional: true,
    functionName: 'walletAddressKeysCreate',
    role: 'AdminChangeRole',
  },
  listWalletAddressKeys: {
    tag: 'Wallet addresses',
    method: 'get',
    path: '/wallet-addresses/{id}/keys',
    summary: "List a wallet address's keys",
    description: 'Revoked keys included.',
    params: idParams,
    status: 200,
    response: walletAddressKeyList,
    problems: [walletAddressErrors.notFound],
    functionName: 'walletAddressKeysList',
    role: 'WalletAddressKeysListRole',
  },
  revokeWalletAddressKey: {
    tag: 'Wallet addresses',
    method: 'post',
    path: '/wallet-addresses/{id}/keys/{kid}/revoke',
    summary: 'Revoke a key',
    description: 'Revoking a revoked key changes nothing.',
    params: keyParams,
    status: 200,
    response: walletAddressKey,
    problems: [walletAddressErrors.notFound, walletAddressErrors.keyNotFound],
    transactional: true,
    functionName: 'walletAddressKeysRevoke',
    role: 'AdminChangeRole',
  },
  pushRate: {
    tag: 'Rates',
    method: 'post',
    path: '/rates',
    summary: 'Push an exchange rate',
    description: 'With `peerId`: the rate for that peer; without: FSP-wide.',
    body: pushRateBody,
    status: 201,
    response: rate,
    problems: [peerErrors.unknown],
    transactional: true,
    functionName: 'ratesPush',
    role: 'RatesPushRole',
  },
  getRate: {
    tag: 'Rates',
    method: 'get',
    path: '/rates',
    summary: 'Get the rate the service would use now',
    description: 'A pushed rate, else a pulled one from the cache, else one pulled from the FSP now.',
    query: rateQuery,
    status: 200,
    response: rate,
    problems: [peerErrors.unknown, rateErrors.unavailable],
    functionName: 'ratesResolve',
    role: 'RatesResolveRole',
  },
  createPaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents',
    summary: 'Create a payment intent',
    description: "An incoming payment on the recipient's wallet address; its `url` is the record over Open Payments.",
    body: createIntentBody,
    status: 201,
    response: paymentIntent,
    problems: [walletAddressErrors.unknown, walletAddressErrors.inactive, intentErrors.assetMismatch],
    transactional: true,
    functionName: 'paymentIntentsCreate',
    role: 'PaymentIntentsCreateRole',
  },
  listPaymentIntents: {
    tag: 'Payment intents',
    method: 'get',
    path: '/payment-intents',
    summary: 'List payment intents, newest first',
    description:
      "All, or a wallet address's (`walletAddress`, its URL), in any state or one (`state`, as the intent reads: an open intent past its " +
      'expiry is `expired`).',
    query: listIntentsQuery,
    status: 200,
    response: paymentIntentPage,
    functionName: 'paymentIntentsList',
    role: 'AdminRecordsListRole',
  },
  getPaymentIntent: {
    tag: 'Payment intents',
    method: 'get',
    path: '/payment-intents/{id}',
    summary: 'Get a payment intent',
    params: idParams,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound],
    functionName: 'paymentIntentsGet',
    role: 'AdminReadRole',
  },
  completePaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/complete',
    summary: 'Complete a pending or processing payment intent',
    params: idParams,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound, commonErrors.invalidState],
    transactional: true,
    functionName: 'paymentIntentsComplete',
    role: 'AdminLiquidityRole',
  },
  approvePaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/approve',
    summary: 'Approve a payment intent held for approval',
    description: 'A `pending_approval` intent becomes `pending` and takes payments (409 from any other state).',
    params: idParams,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound, commonErrors.invalidState],
    transactional: true,
    rowAction: true,
    functionName: 'paymentIntentsApprove',
    role: 'AdminChangeRole',
  },
  cancelPaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/cancel',
    summary: 'Cancel a payment intent held for approval',
    description: 'A `pending_approval` intent becomes `cancelled`, with the reason, and takes nothing ever (409 from any other state).',
    params: idParams,
    body: cancelIntentBody,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound, commonErrors.invalidState],
    transactional: true,
    rowAction: true,
    functionName: 'paymentIntentsCancel',
    role: 'AdminChangeRole',
  },
  withdrawPaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/withdraw',
    summary: 'Settle what the payment intent received to the FSP',
    params: idParams,
    status: 200,
    response: paymentIntentWithdrawal,
    problems: [intentErrors.notFound, ledgerErrors.concurrentWithdrawal, ledgerErrors.balanceTooLarge],
    transactional: true,
    rowAction: true,
    functionName: 'paymentIntentsWithdraw',
    role: 'AdminLiquidityRole',
  },
  createQuote: {
    tag: 'Quotes',
    method: 'post',
    path: '/quotes',
    summary: 'Create a quote',
    description:
      "On the sender's wallet address, to a payment intent of this node (its id or URL) or to an incoming payment on " +
      'another node, whose route is probed over Interledger (502 when that node or the peer fails).',
    body: createQuoteBody,
    status: 201,
    response: quote,
    problems: [
      walletAddressErrors.unknown,
      walletAddressErrors.inactive,
      ilpErrors.receiverNotFound,
      ilpErrors.receiverNotOpen,
      intentErrors.assetMismatch,
      quoteErrors.amountRequired,
      quoteErrors.amountTooSmall,
      quoteErrors.amountExceedsRemaining,
      rateErrors.unavailable,
      ilpErrors.noRoute,
      ilpErrors.insufficientExchangeRate,
      ilpErrors.receiverUnreachable,
      ilpErrors.receiverInvalid,
      ilpErrors.peerRefused,
      ilpErrors.peerUnreachable,
      ilpErrors.rateProbeFailed,
    ],
    transactional: true,
    functionName: 'quotesCreate',
    role: 'QuotesCreateRole',
  },
  getQuote: {
    tag: 'Quotes',
    method: 'get',
    path: '/quotes/{id}',
    summary: 'Get a quote',
    params: idParams,
    status: 200,
    response: quote,
    problems: [quoteErrors.notFound],
    functionName: 'quotesGet',
    role: 'AdminReadRole',
  },
  createPayment: {
    tag: 'Payments',
    method: 'post',
    path: '/payments',
    summary: 'Create a payment from a quote',
    description: 'The quote must be unexpired and unused. Emits `payment.created`.',
    body: createPaymentBody,
    status: 201,
    response: payment,
    problems: [quoteErrors.used, quoteErrors.unknown, quoteErrors.walletMismatch, quoteErrors.expired, walletAddressErrors.inactive],
    transactional: true,
    functionName: 'paymentsCreate',
    role: 'PaymentsCreateRole',
  },
  listPayments: {
    tag: 'Payments',
    method: 'get',
    path: '/payments',
    summary: 'List payments, newest first',
    description: "All, or a wallet address's (`walletAddress`, its URL), in any state or one (`state`).",
    query: listPaymentsQuery,
    status: 200,
    response: paymentPage,
    functionName: 'paymentsList',
    role: 'AdminRecordsListRole',
  },
  getPayment: {
    tag: 'Payments',
    method: 'get',
    path: '/payments/{id}',
    summary: 'Get a payment',
    params: idParams,
    status: 200,
    response: payment,
    problems: [paymentErrors.notFound],
    functionName: 'paymentsGet',
    role: 'AdminReadRole',
  },
  fundPayment: {
    tag: 'Payments',
    method: 'post',
    path: '/payments/{id}/fund',
    summary: 'Fund (approve) a payment',
    description: 'With exactly its debit amount; it is then sent.',
    params: idParams,
    status: 200,
    response: payment,
    problems: [paymentErrors.notFound, commonErrors.invalidState, quoteErrors.expired, walletAddressErrors.inactive, ledgerErrors.balanceTooLarge],
    transactional: true,
    rowAction: true,
    functionName: 'paymentsFund',
    role: 'PaymentsFundRole',
  },
  cancelPayment: {
    tag: 'Payments',
    method: 'post',
    path: '/payments/{id}/cancel',
    summary: 'Cancel a payment that is not funded',
    params: idParams,
    status: 200,
    response: payment,
    problems: [paymentErrors.notFound, commonErrors.invalidState],
    transactional: true,
    rowAction: true,
    functionName: 'paymentsCancel',
    role: 'AdminChangeRole',
  },
  withdrawPayment: {
    tag: 'Payments',
    method: 'post',
    path: '/payments/{id}/withdraw',
    summary: "Settle what is left in a failed payment's account back to the FSP",
    params: idParams,
    status: 200,
    response: paymentWithdrawal,
    problems: [paymentErrors.notFound, commonErrors.invalidState, ledgerErrors.concurrentWithdrawal, ledgerErrors.balanceTooLarge],
    transactional: true,
    rowAction: true,
    functionName: 'paymentsWithdraw',
    role: 'AdminLiquidityRole',
  },
  createPeer: {
    tag: 'Peers',
    method: 'post',
    path: '/peers',
    summary: 'Create a peer',
    description:
      'Incoming tokens are never echoed. The outgoing endpoint may not be, or resolve to, an internal address (loopback, private, ' +
      'link-local) unless the deployment allows the tenant (`ALLOW_PRIVATE_PEERS`).',
    body: createPeerBody,
    status: 201,
    response: peer,
    problems: [peerErrors.exists, peerErrors.tokenInUse, peerErrors.internalEndpoint, assetErrors.unknown],
    transactional: true,
    functionName: 'peersCreate',
    role: 'AdminCreateRole',
  },
  listPeers: {
    tag: 'Peers',
    method: 'get',
    path: '/peers',
    summary: 'List peers, newest first',
    query: pageQuery,
    status: 200,
    response: peerPage,
    functionName: 'peersList',
    role: 'AdminListRole',
  },
  getPeer: {
    tag: 'Peers',
    method: 'get',
    path: '/peers/{id}',
    summary: 'Get a peer and its liquidity',
    params: idParams,
    status: 200,
    response: peerWithLiquidity,
    problems: [peerErrors.notFound],
    functionName: 'peersGet',
    role: 'AdminBalanceReadRole',
  },
  updatePeer: {
    tag: 'Peers',
    method: 'patch',
    path: '/peers/{id}',
    summary: 'Change a peer',
    description: 'Its name, tokens, endpoint (as `POST /peers` takes it), `maxPacketAmount` or `liquidityThreshold`.',
    params: idParams,
    body: updatePeerBody,
    status: 200,
    response: peer,
    problems: [peerErrors.notFound, peerErrors.changed, peerErrors.tokenInUse, peerErrors.internalEndpoint],
    transactional: true,
    functionName: 'peersUpdate',
    role: 'PeersUpdateRole',
  },
  deletePeer: {
    tag: 'Peers',
    method: 'delete',
    path: '/peers/{id}',
    summary: 'Delete a peer that holds no liquidity',
    params: idParams,
    status: 204,
    problems: [peerErrors.notFound, peerErrors.hasLiquidity, peerErrors.changed],
    transactional: true,
    functionName: 'peersDelete',
    role: 'PeersDeleteRole',
  },
  depositPeerLiquidity: {
    tag: 'Peers',
    method: 'post',
    path: '/peers/{id}/liquidity',
    summary: 'Deposit peer liquidity',
    description: 'The credit line extended to the peer.',
    params: idParams,
    body: liquidityBody,
    status: 200,
    response: peerWithLiquidity,
    problems: [peerErrors.notFound, ledgerErrors.balanceTooLarge],
    transactional: true,
    functionName: 'peersLiquidityDeposit',
    role: 'AdminLiquidityRole',
  },
  getPeerReconciliation: {
    tag: 'Peers',
    method: 'get',
    path: '/peers/{id}/reconciliation',
    summary: 'List the packets sent to a peer that got no answer',
    description:
      'Packets this node sent the peer whose answer never came before they expired, booked as not paid (Interledger: the sender owes a packet ' +
      'only when its fulfillment arrives in time), by expiry in [from, to) (default: the last 24 hours; at most 31 days), newest first, with ' +
      'the total of the whole window. Compare with what the peer credited from this node: a packet it credited is a fulfillment lost in flight.',
    params: idParams,
    query: reconciliationQuery,
    status: 200,
    response: reconciliation,
    problems: [peerErrors.notFound],
    functionName: 'peersReconciliation',
    role: 'AdminListReadRole',
  },
  withdrawPeerLiquidity: {
    tag: 'Peers',
    method: 'post',
    path: '/peers/{id}/liquidity-withdrawals',
    summary: 'Withdraw peer liquidity',
    description:
      "The amount is at the peer's asset's scale. Answers the peer with its liquidity after it; with `twoPhase: true`, the " +
      'withdrawal, `pending`, as for an asset.',
    params: idParams,
    body: liquidityWithdrawalBody,
    status: 200,
    response: peerLiquidityWithdrawn,
    problems: [peerErrors.notFound, ledgerErrors.insufficientLiquidity, ledgerErrors.balanceTooLarge, ledgerErrors.concurrentWithdrawal],
    transactional: true,
    functionName: 'peersLiquidityWithdraw',
    role: 'AdminLiquidityRole',
  },
  listGrants: {
    tag: 'Grants',
    method: 'get',
    path: '/grants',
    summary: 'List Open Payments grants, newest first',
    description:
      'Filtered by `walletAddress` (the id or URL of the wallet address a grant is for), `client` (the wallet address of the app it ' +
      'was given to) and `state`.',
    query: grantsQuery,
    status: 200,
    response: grantPage,
    functionName: 'grantsList',
    role: 'GrantsListRole',
  },
  revokeGrant: {
    tag: 'Grants',
    method: 'post',
    path: '/grants/{id}/revoke',
    summary: 'Revoke an Open Payments grant and its access token',
    description:
      'The grant becomes `revoked` and its access token stops working at once (introspection answers it inactive). ' +
      'A grant revoked or rejected before is answered as it is. Each revocation emits `grant.revoked`.',
    params: idParams,
    status: 200,
    response: grant,
    problems: [authErrors.grantNotFound],
    transactional: true,
    rowAction: true,
    functionName: 'grantsRevoke',
    role: 'GrantsRevokeRole',
  },
  listWebhookEvents: {
    tag: 'Webhook events',
    method: 'get',
    path: '/webhook-events',
    summary: 'List webhook events, newest first',
    description: 'All, or by delivery status, type and resource.',
    query: listQuery,
    status: 200,
    response: webhookEventPage,
    functionName: 'webhookEventsList',
    role: 'WebhookEventsListRole',
  },
  getWebhookEvent: {
    tag: 'Webhook events',
    method: 'get',
    path: '/webhook-events/{id}',
    summary: 'Get a webhook event',
    description: 'With every delivery attempt.',
    params: eventIdParams,
    status: 200,
    response: webhookEvent,
    problems: [webhookErrors.notFound],
    functionName: 'webhookEventsGet',
    role: 'WebhookEventsGetRole',
  },
  redeliverWebhookEvent: {
    tag: 'Webhook events',
    method: 'post',
    path: '/webhook-events/{id}/redeliver',
    summary: 'Send an event again',
    description:
      'A delivered or failed event, with the same id, on a fresh retry schedule; or a pending one whose next attempt ' +
      '(`nextAttemptAt`) is overdue by more than 15 minutes, when no scheduled attempt of it can still run (that attempt ' +
      'is recorded as skipped). Any other pending event is 409 `invalid_state`.',
    params: eventIdParams,
    status: 202,
    response: webhookEvent,
    problems: [webhookErrors.notFound, commonErrors.invalidState],
    transactional: true,
    rowAction: true,
    functionName: 'webhookEventsRedeliver',
    role: 'WebhookEventsRedeliverRole',
  },
  listAuditEvents: {
    tag: 'Audit events',
    method: 'get',
    path: '/audit-events',
    summary: "List operators' actions, newest first",
    description:
      'Every action (any method but GET) of an operator signed in to the console, succeeded or refused, in the tenant it acted in. ' +
      "A succeeded action's event was written in the transaction of its change. Requests signed with an Admin API secret are not listed. " +
      "`actor` (an operator's name), `resourceId`, `action` (e.g. `POST /assets/{id}/liquidity`) and `outcome` narrow the list; " +
      '`from` and `to` bound its time, [from, to).',
    query: auditEventsQuery,
    status: 200,
    response: auditEventPage,
    functionName: 'auditEventsList',
    role: 'AuditEventsListRole',
  },
  createTenant: {
    tag: 'Tenants',
    method: 'post',
    path: '/tenants',
    summary: 'Create a tenant',
    description:
      "The answer holds the tenant's secrets (`adminApiSecret`, `webhookSecret`, `idpSecret`), shown this once. An " +
      'Idempotency-Key is refused (400 `idempotency_key_refused`: the answer is never stored); a retry is safe without ' +
      'one, as a second tenant on the same prefix is 409 `wallet_address_prefix_taken`, naming the first. The prefix is a URL under WALLET_ADDRESS_URL, ' +
      "neither equal to, above nor below another active tenant's.",
    body: createTenantBody,
    status: 201,
    response: createdTenant,
    problems: [
      tenantErrors.operatorOnly,
      tenantErrors.idempotencyKeyRefused,
      tenantErrors.prefixTaken,
      tenantErrors.prefixHoldsAddresses,
      tenantErrors.suffixTaken,
      tenantErrors.changed,
    ],
    transactional: true,
    operatorOnly: true,
    answersSecrets: true,
    functionName: 'tenantsCreate',
    role: 'TenantsCreateRole',
  },
  listTenants: {
    tag: 'Tenants',
    method: 'get',
    path: '/tenants',
    summary: 'List tenants, newest first',
    description: "Those the operator made, deleted ones too; the operator's own is `GET /tenants/operator`.",
    query: pageQuery,
    status: 200,
    response: tenantPage,
    problems: [tenantErrors.operatorOnly],
    operatorOnly: true,
    functionName: 'tenantsList',
    role: 'AdminListRole',
  },
  getTenant: {
    tag: 'Tenants',
    method: 'get',
    path: '/tenants/{id}',
    summary: 'Get a tenant',
    description: "`operator`: the operator's own, which is the deployment's settings. Never the secrets.",
    params: tenantParams,
    status: 200,
    response: tenant,
    problems: [tenantErrors.operatorOnly, tenantErrors.notFound],
    operatorOnly: true,
    functionName: 'tenantsGet',
    role: 'AdminReadRole',
  },
  updateTenant: {
    tag: 'Tenants',
    method: 'patch',
    path: '/tenants/{id}',
    summary: "Change a tenant's name or URLs",
    description: '`null` removes a URL. The prefix and the ILP address suffix never change.',
    params: tenantParams,
    body: updateTenantBody,
    status: 200,
    response: tenant,
    problems: [tenantErrors.operatorOnly, tenantErrors.notFound, tenantErrors.operatorFixed, tenantErrors.changed],
    transactional: true,
    operatorOnly: true,
    functionName: 'tenantsUpdate',
    role: 'TenantsUpdateRole',
  },
  deleteTenant: {
    tag: 'Tenants',
    method: 'delete',
    path: '/tenants/{id}',
    summary: 'Delete a tenant',
    description:
      "Soft: its credentials are refused at once, its secrets are scheduled for deletion (7 days' recovery window), its " +
      'data is kept and its prefix is free for another tenant. Deleting a deleted tenant again is 204.',
    params: tenantParams,
    status: 204,
    problems: [tenantErrors.operatorOnly, tenantErrors.notFound, tenantErrors.operatorFixed, tenantErrors.changed],
    transactional: true,
    operatorOnly: true,
    functionName: 'tenantsDelete',
    role: 'TenantsDeleteRole',
  },
  // GET /openapi.json: public, unsigned; apart from signedRoutes, which tests sign and send bad input to.
  getOpenApiDocument: {
    tag: 'Docs',
    method: 'get',
    path: '/openapi.json',
    summary: 'Get this document',
    status: 200,
    response: openApiDocumentSchema,
    isPublic: true,
    functionName: 'openApi',
    role: 'PublicDocsRole',
  },
});

export const allRoutes: Route[] = Object.values(routes);

// What a route answers, for clients in this repository (the console) to name by type only.
export type RouteResponse<K extends keyof typeof routes> = (typeof routes)[K] extends { response: infer S extends z.ZodType } ? z.output<S> : undefined;
export const signedRoutes = allRoutes.filter((r) => !r.isPublic);

// Whether a route takes an Idempotency-Key: every POST but those whose answer holds secrets, which
// the idempotency layer would store (lib/api/http/admin.ts refuses the header on them).
export const takesIdempotencyKey = (route: Pick<Route, 'method' | 'answersSecrets'>) => route.method === 'post' && !route.answersSecrets;

// The object a query is documented and fuzzed by: itself, or what its cross-field check leads into.
export function queryFields(route: Route): z.ZodObject | undefined {
  const q = route.query;
  return q instanceof z.ZodPipe ? (q.out as z.ZodObject) : (q as z.ZodObject | undefined);
}

// A handler marked with the route it serves, so that a test can tell that each function of
// serverless.yml serves the route the table gives it.
export const serving = <H extends object>(route: Route, handler: H): H & { route: string } => Object.assign(handler, { route: route.id });
