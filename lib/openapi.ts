// The Admin API's OpenAPI 3.1 document, generated from the same zod schemas that validate requests.
// A test checks that the operations below and serverless.yml declare the same routes; another
// lints the document with Redocly and builds a typed client from it (test/unit/openapi-*.test.ts).
import * as z from 'zod';
import { amount } from './amounts';
import { assetErrors } from './assets/errors';
import { asset, assetWithLiquidity, createAssetBody, liquidityBody } from './assets/schemas';
import { type CatalogEntry, commonErrors } from './errors';
import { httpErrors } from './http/errors';
import { type Problem, problem } from './http/problem';
import { idParams, MAX_BODY_BYTES, page } from './http/schemas';
import { ilpErrors } from './ilp/errors';
import { ledgerErrors } from './ledger/errors';
import { ledgerCheck } from './ledger-check/schemas';
import { intentErrors } from './payment-intents/errors';
import { createIntentBody, listIntentsQuery, paymentIntent } from './payment-intents/schemas';
import { paymentErrors } from './payments/errors';
import { createPaymentBody, listPaymentsQuery, payment } from './payments/schemas';
import { peerErrors } from './peers/errors';
import { createPeerBody, peer, peerWithLiquidity, reconciliation, reconciliationQuery, unansweredPacket, updatePeerBody } from './peers/schemas';
import { quoteErrors } from './quotes/errors';
import { createQuoteBody, quote } from './quotes/schemas';
import { rateErrors } from './rates/errors';
import { pushRateBody, rate, rateQuery } from './rates/schemas';
import { tenantErrors } from './tenants/errors';
import { createdTenant, createTenantBody, tenant, tenantParams, updateTenantBody } from './tenants/schemas';
import { pageLimit, pageQuery } from './values';
import { walletAddressErrors } from './wallet-addresses/errors';
import {
  createWalletAddressBody,
  ed25519Jwk,
  keyParams,
  updateWalletAddressBody,
  walletAddress,
  walletAddressesQuery,
  walletAddressKey,
} from './wallet-addresses/schemas';
import { webhookErrors } from './webhooks/errors';
import { attempt, eventIdParams, listQuery, webhookEvent } from './webhooks/schemas';

const tags = [
  { name: 'Assets', description: 'The currencies the FSP holds, each with the liquidity that pays out.' },
  { name: 'Wallet addresses', description: 'The accounts that send and receive, published over Open Payments.' },
  { name: 'Rates', description: 'Exchange rates: pushed by the FSP, or pulled from its rates endpoint and cached.' },
  { name: 'Payment intents', description: 'Payments a wallet address expects (Open Payments incoming payments).' },
  { name: 'Quotes', description: 'What a payment to an incoming payment will debit and deliver.' },
  { name: 'Payments', description: 'Outgoing payments made from quotes: funded by the FSP, then sent.' },
  { name: 'Peers', description: 'The nodes this one exchanges Interledger packets with, and the credit each has.' },
  { name: 'Webhook events', description: 'The events sent to the FSP, with every delivery attempt.' },
  { name: 'Tenants', description: "The FSPs the deployment serves besides its operator's: the operator's alone to manage." },
  { name: 'Docs', description: 'This document.' },
] as const;

type Tag = (typeof tags)[number]['name'];

interface Operation {
  // operationId: generated clients name their methods after it, so it never changes.
  id: string;
  tag: Tag;
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  summary: string;
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  status: number;
  response?: z.ZodType;
  // The errors of the catalogs this route can answer; those every route shares are added by
  // openApiDocument(), and each is documented under its catalog's status.
  problems?: CatalogEntry[];
  // Unsigned: no signature, and none of the signed stack's problems.
  isPublic?: true;
}

// Response shapes that only this document names.
const assetPage = page(asset);
const walletAddressPage = page(walletAddress);
const walletAddressOrPage = z.union([walletAddress, walletAddressPage]);
const paymentIntentPage = page(paymentIntent);
const paymentPage = page(payment);
const walletAddressKeyList = z.object({ items: z.array(walletAddressKey) });
const paymentIntentWithdrawal = paymentIntent.extend({ withdrawnAmount: amount });
const paymentWithdrawal = payment.extend({ withdrawnAmount: amount });
const peerPage = page(peer);
const webhookEventPage = page(webhookEvent);
const tenantPage = page(tenant);
const fieldError = z.object({ field: z.string(), message: z.string() });
// What lib/http/problem.ts answers (RFC 9457); `satisfies` keeps the two in step.
const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  code: z.string(),
  errors: z.array(fieldError).optional(),
}) satisfies z.ZodType<Problem>;
const openApiDocumentSchema = z.looseObject({ openapi: z.string() });

// The signed routes.
export const operations: Operation[] = [
  {
    id: 'createAsset',
    tag: 'Assets',
    method: 'post',
    path: '/assets',
    summary: 'Create an asset',
    body: createAssetBody,
    status: 201,
    response: asset,
    problems: [assetErrors.exists],
  },
  {
    id: 'listAssets',
    tag: 'Assets',
    method: 'get',
    path: '/assets',
    summary: 'List assets',
    query: pageQuery,
    status: 200,
    response: assetPage,
  },
  {
    id: 'checkLedger',
    tag: 'Assets',
    method: 'get',
    path: '/ledger/check',
    summary: "Check that every asset's accounts sum to zero",
    description:
      'Sums the balances of each asset (its liquidity, settlement, intents, payments, peers and holds) server-side. A back-office check: it scans the main table, so its cost grows with the table.',
    status: 200,
    response: ledgerCheck,
  },
  {
    id: 'getAsset',
    tag: 'Assets',
    method: 'get',
    path: '/assets/{id}',
    summary: 'Get an asset and its liquidity',
    params: idParams,
    status: 200,
    response: assetWithLiquidity,
    problems: [assetErrors.notFound],
  },
  {
    id: 'depositAssetLiquidity',
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
  },
  {
    id: 'withdrawAssetLiquidity',
    tag: 'Assets',
    method: 'post',
    path: '/assets/{id}/liquidity-withdrawals',
    summary: 'Withdraw liquidity',
    params: idParams,
    body: liquidityBody,
    status: 200,
    response: assetWithLiquidity,
    problems: [assetErrors.notFound, ledgerErrors.insufficientLiquidity, ledgerErrors.balanceTooLarge],
  },
  {
    id: 'createWalletAddress',
    tag: 'Wallet addresses',
    method: 'post',
    path: '/wallet-addresses',
    summary: 'Create a wallet address',
    body: createWalletAddressBody,
    status: 201,
    response: walletAddress,
    problems: [walletAddressErrors.exists, walletAddressErrors.baseChanged, assetErrors.unknown],
  },
  {
    id: 'findWalletAddress',
    tag: 'Wallet addresses',
    method: 'get',
    path: '/wallet-addresses',
    summary: 'List wallet addresses, newest first, or find one by its URL',
    description:
      'Without `address`: a page of wallet addresses (`limit`, `cursor`). With `address`: the wallet address at that URL, matched in any ' +
      'letter case (it takes no `limit` or `cursor`).',
    query: walletAddressesQuery.out,
    status: 200,
    response: walletAddressOrPage,
    problems: [walletAddressErrors.notFound],
  },
  {
    id: 'getWalletAddress',
    tag: 'Wallet addresses',
    method: 'get',
    path: '/wallet-addresses/{id}',
    summary: 'Get a wallet address',
    params: idParams,
    status: 200,
    response: walletAddress,
    problems: [walletAddressErrors.notFound],
  },
  {
    id: 'updateWalletAddress',
    tag: 'Wallet addresses',
    method: 'patch',
    path: '/wallet-addresses/{id}',
    summary: "Change a wallet address's public name",
    params: idParams,
    body: updateWalletAddressBody,
    status: 200,
    response: walletAddress,
    problems: [walletAddressErrors.notFound],
  },
  {
    id: 'createWalletAddressKey',
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
  },
  {
    id: 'listWalletAddressKeys',
    tag: 'Wallet addresses',
    method: 'get',
    path: '/wallet-addresses/{id}/keys',
    summary: "List a wallet address's keys",
    description: 'Revoked keys included.',
    params: idParams,
    status: 200,
    response: walletAddressKeyList,
    problems: [walletAddressErrors.notFound],
  },
  {
    id: 'revokeWalletAddressKey',
    tag: 'Wallet addresses',
    method: 'post',
    path: '/wallet-addresses/{id}/keys/{kid}/revoke',
    summary: 'Revoke a key',
    description: 'Revoking a revoked key changes nothing.',
    params: keyParams,
    status: 200,
    response: walletAddressKey,
    problems: [walletAddressErrors.notFound, walletAddressErrors.keyNotFound],
  },
  {
    id: 'pushRate',
    tag: 'Rates',
    method: 'post',
    path: '/rates',
    summary: 'Push an exchange rate',
    description: 'With `peerId`: the rate for that peer; without: FSP-wide.',
    body: pushRateBody,
    status: 201,
    response: rate,
    problems: [peerErrors.unknown],
  },
  {
    id: 'getRate',
    tag: 'Rates',
    method: 'get',
    path: '/rates',
    summary: 'Get the rate the service would use now',
    description: 'A pushed rate, else a pulled one from the cache, else one pulled from the FSP now.',
    query: rateQuery,
    status: 200,
    response: rate,
    problems: [peerErrors.unknown, rateErrors.unavailable],
  },
  {
    id: 'createPaymentIntent',
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents',
    summary: 'Create a payment intent',
    description: "An incoming payment on the recipient's wallet address; its `url` is the record over Open Payments.",
    body: createIntentBody,
    status: 201,
    response: paymentIntent,
    problems: [walletAddressErrors.unknown, intentErrors.assetMismatch],
  },
  {
    id: 'listPaymentIntents',
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
  },
  {
    id: 'getPaymentIntent',
    tag: 'Payment intents',
    method: 'get',
    path: '/payment-intents/{id}',
    summary: 'Get a payment intent',
    params: idParams,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound],
  },
  {
    id: 'completePaymentIntent',
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/complete',
    summary: 'Complete a pending or processing payment intent',
    params: idParams,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound, commonErrors.invalidState],
  },
  {
    id: 'withdrawPaymentIntent',
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/withdraw',
    summary: 'Settle what the payment intent received to the FSP',
    params: idParams,
    status: 200,
    response: paymentIntentWithdrawal,
    problems: [intentErrors.notFound, ledgerErrors.concurrentWithdrawal, ledgerErrors.balanceTooLarge],
  },
  {
    id: 'createQuote',
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
  },
  {
    id: 'getQuote',
    tag: 'Quotes',
    method: 'get',
    path: '/quotes/{id}',
    summary: 'Get a quote',
    params: idParams,
    status: 200,
    response: quote,
    problems: [quoteErrors.notFound],
  },
  {
    id: 'createPayment',
    tag: 'Payments',
    method: 'post',
    path: '/payments',
    summary: 'Create a payment from a quote',
    description: 'The quote must be unexpired and unused. Emits `payment.created`.',
    body: createPaymentBody,
    status: 201,
    response: payment,
    problems: [quoteErrors.used, quoteErrors.unknown, quoteErrors.walletMismatch, quoteErrors.expired],
  },
  {
    id: 'listPayments',
    tag: 'Payments',
    method: 'get',
    path: '/payments',
    summary: 'List payments, newest first',
    description: "All, or a wallet address's (`walletAddress`, its URL), in any state or one (`state`).",
    query: listPaymentsQuery,
    status: 200,
    response: paymentPage,
  },
  {
    id: 'getPayment',
    tag: 'Payments',
    method: 'get',
    path: '/payments/{id}',
    summary: 'Get a payment',
    params: idParams,
    status: 200,
    response: payment,
    problems: [paymentErrors.notFound],
  },
  {
    id: 'fundPayment',
    tag: 'Payments',
    method: 'post',
    path: '/payments/{id}/fund',
    summary: 'Fund (approve) a payment',
    description: 'With exactly its debit amount; it is then sent.',
    params: idParams,
    status: 200,
    response: payment,
    problems: [paymentErrors.notFound, commonErrors.invalidState, quoteErrors.expired, ledgerErrors.balanceTooLarge],
  },
  {
    id: 'cancelPayment',
    tag: 'Payments',
    method: 'post',
    path: '/payments/{id}/cancel',
    summary: 'Cancel a payment that is not funded',
    params: idParams,
    status: 200,
    response: payment,
    problems: [paymentErrors.notFound, commonErrors.invalidState],
  },
  {
    id: 'withdrawPayment',
    tag: 'Payments',
    method: 'post',
    path: '/payments/{id}/withdraw',
    summary: "Settle what is left in a failed payment's account back to the FSP",
    params: idParams,
    status: 200,
    response: paymentWithdrawal,
    problems: [paymentErrors.notFound, commonErrors.invalidState, ledgerErrors.concurrentWithdrawal, ledgerErrors.balanceTooLarge],
  },
  {
    id: 'createPeer',
    tag: 'Peers',
    method: 'post',
    path: '/peers',
    summary: 'Create a peer',
    description: 'Incoming tokens are never echoed.',
    body: createPeerBody,
    status: 201,
    response: peer,
    problems: [peerErrors.exists, peerErrors.tokenInUse, assetErrors.unknown],
  },
  {
    id: 'listPeers',
    tag: 'Peers',
    method: 'get',
    path: '/peers',
    summary: 'List peers, newest first',
    query: pageQuery,
    status: 200,
    response: peerPage,
  },
  {
    id: 'getPeer',
    tag: 'Peers',
    method: 'get',
    path: '/peers/{id}',
    summary: 'Get a peer and its liquidity',
    params: idParams,
    status: 200,
    response: peerWithLiquidity,
    problems: [peerErrors.notFound],
  },
  {
    id: 'updatePeer',
    tag: 'Peers',
    method: 'patch',
    path: '/peers/{id}',
    summary: 'Change a peer',
    description: 'Its name, tokens, endpoint, `maxPacketAmount` or `liquidityThreshold`.',
    params: idParams,
    body: updatePeerBody,
    status: 200,
    response: peer,
    problems: [peerErrors.notFound, peerErrors.changed, peerErrors.tokenInUse],
  },
  {
    id: 'deletePeer',
    tag: 'Peers',
    method: 'delete',
    path: '/peers/{id}',
    summary: 'Delete a peer that holds no liquidity',
    params: idParams,
    status: 204,
    problems: [peerErrors.notFound, peerErrors.hasLiquidity, peerErrors.changed],
  },
  {
    id: 'depositPeerLiquidity',
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
  },
  {
    id: 'getPeerReconciliation',
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
  },
  {
    id: 'withdrawPeerLiquidity',
    tag: 'Peers',
    method: 'post',
    path: '/peers/{id}/liquidity-withdrawals',
    summary: 'Withdraw peer liquidity',
    params: idParams,
    body: liquidityBody,
    status: 200,
    response: peerWithLiquidity,
    problems: [peerErrors.notFound, ledgerErrors.insufficientLiquidity, ledgerErrors.balanceTooLarge],
  },
  {
    id: 'listWebhookEvents',
    tag: 'Webhook events',
    method: 'get',
    path: '/webhook-events',
    summary: 'List webhook events, newest first',
    description: 'All, or by delivery status, type and resource.',
    query: listQuery,
    status: 200,
    response: webhookEventPage,
  },
  {
    id: 'getWebhookEvent',
    tag: 'Webhook events',
    method: 'get',
    path: '/webhook-events/{id}',
    summary: 'Get a webhook event',
    description: 'With every delivery attempt.',
    params: eventIdParams,
    status: 200,
    response: webhookEvent,
    problems: [webhookErrors.notFound],
  },
  {
    id: 'redeliverWebhookEvent',
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
  },
  {
    id: 'createTenant',
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
    problems: [tenantErrors.operatorOnly, tenantErrors.prefixTaken, tenantErrors.suffixTaken, tenantErrors.changed],
  },
  {
    id: 'listTenants',
    tag: 'Tenants',
    method: 'get',
    path: '/tenants',
    summary: 'List tenants, newest first',
    description: "Those the operator made, deleted ones too; the operator's own is `GET /tenants/operator`.",
    query: pageQuery,
    status: 200,
    response: tenantPage,
    problems: [tenantErrors.operatorOnly],
  },
  {
    id: 'getTenant',
    tag: 'Tenants',
    method: 'get',
    path: '/tenants/{id}',
    summary: 'Get a tenant',
    description: "`operator`: the operator's own, which is the deployment's settings. Never the secrets.",
    params: tenantParams,
    status: 200,
    response: tenant,
    problems: [tenantErrors.operatorOnly, tenantErrors.notFound],
  },
  {
    id: 'updateTenant',
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
  },
  {
    id: 'deleteTenant',
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
  },
];

// GET /openapi.json: apart from `operations`, which tests sign and send bad input to.
const documentOperation: Operation = {
  id: 'getOpenApiDocument',
  tag: 'Docs',
  method: 'get',
  path: '/openapi.json',
  summary: 'Get this document',
  status: 200,
  response: openApiDocumentSchema,
  isPublic: true,
};

// Component names, which generated clients take as type names. Request bodies are described as
// sent (zod's input), responses as answered (its output); Amount and Ed25519Jwk are both.
const requestSchemas = {
  Amount: amount,
  CreateAssetRequest: createAssetBody,
  LiquidityRequest: liquidityBody,
  CreateWalletAddressRequest: createWalletAddressBody,
  UpdateWalletAddressRequest: updateWalletAddressBody,
  Ed25519Jwk: ed25519Jwk,
  PushRateRequest: pushRateBody,
  CreatePaymentIntentRequest: createIntentBody,
  CreateQuoteRequest: createQuoteBody,
  CreatePaymentRequest: createPaymentBody,
  CreatePeerRequest: createPeerBody,
  UpdatePeerRequest: updatePeerBody,
  CreateTenantRequest: createTenantBody,
  UpdateTenantRequest: updateTenantBody,
};
const responseSchemas = {
  Amount: amount,
  Asset: asset,
  AssetWithLiquidity: assetWithLiquidity,
  AssetPage: assetPage,
  LedgerCheck: ledgerCheck,
  WalletAddress: walletAddress,
  WalletAddressPage: walletAddressPage,
  WalletAddressOrPage: walletAddressOrPage,
  Ed25519Jwk: ed25519Jwk,
  WalletAddressKey: walletAddressKey,
  WalletAddressKeyList: walletAddressKeyList,
  Rate: rate,
  PaymentIntent: paymentIntent,
  PaymentIntentPage: paymentIntentPage,
  PaymentIntentWithdrawal: paymentIntentWithdrawal,
  Quote: quote,
  Payment: payment,
  PaymentPage: paymentPage,
  PaymentWithdrawal: paymentWithdrawal,
  Peer: peer,
  PeerWithLiquidity: peerWithLiquidity,
  PeerPage: peerPage,
  UnansweredPacket: unansweredPacket,
  PeerReconciliation: reconciliation,
  WebhookDeliveryAttempt: attempt,
  WebhookEvent: webhookEvent,
  WebhookEventPage: webhookEventPage,
  Tenant: tenant,
  CreatedTenant: createdTenant,
  TenantPage: tenantPage,
  FieldError: fieldError,
  Problem: problemSchema,
  OpenApiDocument: openApiDocumentSchema,
};

const componentRef = (id: string) => `#/components/schemas/${id}`;

function registryOf(schemas: Record<string, z.ZodType>) {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(schemas)) registry.add(schema, { id });
  return registry;
}

// Each named schema as JSON Schema, the others it contains as $refs to them.
function componentSchemas(schemas: Record<string, z.ZodType>, io: 'input' | 'output') {
  const converted = z.toJSONSchema(registryOf(schemas), { io, uri: componentRef, unrepresentable: 'any' }).schemas;
  return Object.fromEntries(Object.entries(converted).map(([id, { $schema, $id, ...schema }]) => [id, schema as Record<string, unknown>]));
}

function allComponentSchemas() {
  const requests = componentSchemas(requestSchemas, 'input');
  const responses = componentSchemas(responseSchemas, 'output');
  for (const id of Object.keys(requests)) {
    if (id in responses && JSON.stringify(requests[id]) !== JSON.stringify(responses[id])) {
      throw new Error(`${id} is described differently as a request and as a response: give each its own name`);
    }
  }
  return { ...responses, ...requests };
}

// Every body and response is a named component, so that generated clients name its type.
function refTo(schema: z.ZodType, named: Record<string, z.ZodType>) {
  const id = Object.keys(named).find((name) => named[name] === schema);
  if (!id) throw new Error('A request body or response schema has no component name in lib/openapi.ts');
  return { $ref: componentRef(id) };
}

// A page size arrives as query text and is parsed from it (pageLimit), but it is a number to a
// client: the document says integer 1 to 100, so a generated client takes `limit: 5`.
const asInteger: NonNullable<Parameters<typeof z.toJSONSchema>[1]>['override'] = (ctx) => {
  if (ctx.zodSchema !== pageLimit) return;
  for (const key of Object.keys(ctx.jsonSchema)) delete ctx.jsonSchema[key];
  Object.assign(ctx.jsonSchema, { type: 'integer', minimum: 1, maximum: 100, default: 20 });
};

function parameters(where: 'path' | 'query', obj?: z.ZodObject) {
  if (!obj) return [];
  const { properties, required = [] } = z.toJSONSchema(obj, { io: 'input', unrepresentable: 'any', override: asInteger }) as {
    properties: Record<string, unknown>;
    required?: string[];
  };
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: where,
    required: where === 'path' || required.includes(name),
    schema,
  }));
}

const SUCCESS: Record<number, string> = { 200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No content' };
// The title lib/http/problem.ts gives a status.
const titleOf = (status: number) => problem(status, '', '').title;

const codeList = (entries: CatalogEntry[]) => entries.map((e) => `\`${e.code}\` (${e.title})`).join('; ');

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: componentRef('Problem') } } },
});

// What the signed stack (lib/http/admin.ts) can answer on every route, from the catalogs.
const SHARED_PROBLEMS = {
  BadRequest: [commonErrors.invalidRequest, httpErrors.malformedJson, commonErrors.invalidCursor],
  Unauthorized: [httpErrors.unauthorized],
  PayloadTooLarge: [httpErrors.payloadTooLarge],
  UnsupportedMediaType: [httpErrors.unsupportedMediaType],
} satisfies Record<string, CatalogEntry[]>;
const sharedResponses = {
  BadRequest: problemResponse(`Invalid request: ${codeList(SHARED_PROBLEMS.BadRequest)}, on a list for a cursor.`),
  UnsupportedMediaType: problemResponse(`${codeList(SHARED_PROBLEMS.UnsupportedMediaType)}.`),
  Unauthorized: problemResponse(
    `${codeList(SHARED_PROBLEMS.Unauthorized)}: the signature is missing, malformed, stale, wrong or used before; nothing changed.`,
  ),
  PayloadTooLarge: problemResponse(`${codeList(SHARED_PROBLEMS.PayloadTooLarge)}: over ${MAX_BODY_BYTES / 1024} KiB.`),
  InternalError: problemResponse('The request could not be completed (`internal_error`); it is safe to retry.'),
};
const responseRef = (name: keyof typeof sharedResponses) => ({ $ref: `#/components/responses/${name}` });

// A route's own errors, plus the 404 of an id that cannot exist and the Idempotency-Key's 409 and
// 422, each under its catalog status.
export function routeProblems(op: Pick<Operation, 'problems' | 'params' | 'method'>): Map<number, CatalogEntry[]> {
  const entries = [
    ...(op.problems ?? []),
    ...(op.params ? [commonErrors.notFound] : []),
    ...(op.method === 'post' ? [commonErrors.idempotencyKeyInProgress, commonErrors.idempotencyKeyReused] : []),
  ];
  const byStatus = new Map<number, CatalogEntry[]>();
  for (const e of [...entries].sort((a, b) => a.status - b.status)) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
  return byStatus;
}

function responses(op: Operation) {
  const description = SUCCESS[op.status];
  const success = op.response ? { description, content: { 'application/json': { schema: refTo(op.response, responseSchemas) } } } : { description };
  if (op.isPublic) return { [op.status]: success };
  const own = [...routeProblems(op)].map(([status, entries]) => [status, problemResponse(`${titleOf(status)}: ${codeList(entries)}.`)]);
  return {
    [op.status]: success,
    400: responseRef('BadRequest'),
    401: responseRef('Unauthorized'),
    413: responseRef('PayloadTooLarge'),
    415: responseRef('UnsupportedMediaType'),
    ...Object.fromEntries(own),
    500: responseRef('InternalError'),
  };
}

const API =
  "The FSP's API of the payment service: assets and their liquidity, wallet addresses, exchange rates, " +
  "payment intents, quotes, payments, Interledger peers, webhook events and the deployment's tenants. Every request is signed (see the " +
  '`signature` security scheme). Amounts are `{value, assetCode, assetScale}`, `value` an integer string in the ' +
  "asset's smallest unit. Errors are `application/problem+json` (RFC 9457) with a stable `code`.";

const SIGNATURE =
  'Every request carries `signature: t=<unix seconds, optionally with a fraction>, ' +
  'v2=<hex HMAC-SHA256(ADMIN_API_SECRET, "<t>\\n<METHOD>\\n<path with query>\\n<Idempotency-Key header value, empty if ' +
  'none>\\n<raw body>")>`: the five fields joined by newlines, `t` in the signed string exactly as sent and `<raw body>` ' +
  "the exact bytes sent (empty for none). A signature is valid for 300 s around the server's clock; a non-GET " +
  'signature is accepted once. Several `v2=` values may be sent (for secret rotation); one must match. A `v1=` ' +
  'signature (fields joined by ".") is refused with 401.';

const IDEMPOTENCY_KEY =
  'Makes a retry safe (kept 24 h, per route): the same key and body replay the first response; the same key with ' +
  'another body or resource is 422 `idempotency_key_reused`; while the first request runs, 409 ' +
  '`idempotency_key_in_progress`. The key is part of the signed string.';

const TENANT_ID =
  "The tenant the request is for, signed with that tenant's Admin API secret; absent or `operator`: the operator's, " +
  "signed with the deployment's ADMIN_API_SECRET. An unknown or deleted tenant is 401, as a wrong signature is.";

export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of [...operations, documentOperation]) {
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      operationId: op.id,
      tags: [op.tag],
      summary: op.summary,
      ...(op.description && { description: op.description }),
      ...(op.isPublic && { security: [] }),
      parameters: [
        ...parameters('path', op.params),
        ...parameters('query', op.query),
        ...(op.isPublic ? [] : [{ $ref: '#/components/parameters/TenantId' }]),
        ...(op.method === 'post' ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
      ],
      ...(op.body && {
        requestBody: { required: true, content: { 'application/json': { schema: refTo(op.body, requestSchemas) } } },
      }),
      responses: responses(op),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment service Admin API',
      version: '0.1.0',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
      description: API,
    },
    servers: [
      { url: 'http://localhost:3001', description: 'Node A on this machine (`npm start`)' },
      { url: 'http://localhost:4001', description: 'Node B on this machine (`npm run start:node-b`)' },
      {
        url: 'https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}',
        description: "A deploy: the Admin REST API's invoke URL (`serverless info --stage <stage>` prints it)",
        variables: {
          restApiId: { default: 'a1b2c3d4e5', description: "The REST API's id" },
          region: { default: 'us-east-1', description: 'The AWS region deployed to (`--region`)' },
          stage: { default: 'prod', description: 'The stage deployed (`--stage`)' },
        },
      },
    ],
    security: [{ signature: [] }],
    tags,
    paths,
    components: {
      schemas: allComponentSchemas(),
      responses: sharedResponses,
      parameters: {
        TenantId: {
          name: 'tenant-id',
          in: 'header',
          required: false,
          description: TENANT_ID,
          schema: { type: 'string' },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: IDEMPOTENCY_KEY,
          schema: { type: 'string', maxLength: 255 },
        },
      },
      securitySchemes: { signature: { type: 'apiKey', in: 'header', name: 'signature', description: SIGNATURE } },
    },
  };
}
