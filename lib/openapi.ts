import * as z from 'zod';
import { amount } from './amounts';
import { asset, assetWithLiquidity, createAssetBody, liquidityBody } from './assets/schemas';
import { createIntentBody, paymentIntent } from './payment-intents/schemas';
import { createPaymentBody, payment } from './payments/schemas';
import { createQuoteBody, quote } from './quotes/schemas';
import { eventIdParams, listQuery, webhookEvent } from './webhooks/schemas';
import { idParams, page, pageQuery } from './http/schemas';
import { pushRateBody, rate, rateQuery } from './rates/schemas';
import { createPeerBody, peer, peerWithLiquidity, updatePeerBody } from './peers/schemas';
import {
  createWalletAddressBody,
  ed25519Jwk,
  findWalletAddressQuery,
  keyParams,
  updateWalletAddressBody,
  walletAddress,
  walletAddressKey,
} from './wallet-addresses/schemas';

// The OpenAPI 3.1 document, generated from the same zod schemas that validate requests.
// A test checks that this table and serverless.yml declare the same Admin routes.
interface Operation {
  method: 'get' | 'post' | 'patch' | 'delete';
  path: string;
  summary: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  status: number;
  response: z.ZodType;
  errors: number[];
}

export const operations: Operation[] = [
  { method: 'post', path: '/assets', summary: 'Create an asset', body: createAssetBody, status: 201, response: asset, errors: [400, 401, 409] },
  { method: 'get', path: '/assets', summary: 'List assets', query: pageQuery, status: 200, response: page(asset), errors: [400, 401] },
  { method: 'get', path: '/assets/{id}', summary: 'Get an asset and its liquidity', params: idParams, status: 200, response: assetWithLiquidity, errors: [401, 404] },
  {
    method: 'post', path: '/assets/{id}/liquidity', summary: 'Deposit liquidity (amount at the asset scale)', params: idParams,
    body: liquidityBody, status: 200, response: assetWithLiquidity, errors: [400, 401, 404],
  },
  {
    method: 'post', path: '/assets/{id}/liquidity-withdrawals', summary: 'Withdraw liquidity', params: idParams,
    body: liquidityBody, status: 200, response: assetWithLiquidity, errors: [400, 401, 404, 422],
  },
  {
    method: 'post', path: '/wallet-addresses', summary: 'Create a wallet address', body: createWalletAddressBody,
    status: 201, response: walletAddress, errors: [400, 401, 409, 422],
  },
  {
    method: 'get', path: '/wallet-addresses', summary: 'Find a wallet address by its URL (any letter case)',
    query: findWalletAddressQuery, status: 200, response: walletAddress, errors: [400, 401, 404],
  },
  { method: 'get', path: '/wallet-addresses/{id}', summary: 'Get a wallet address', params: idParams, status: 200, response: walletAddress, errors: [401, 404] },
  {
    method: 'patch', path: '/wallet-addresses/{id}', summary: "Change a wallet address's public name", params: idParams,
    body: updateWalletAddressBody, status: 200, response: walletAddress, errors: [400, 401, 404],
  },
  {
    method: 'post', path: '/wallet-addresses/{id}/keys', summary: 'Register an Ed25519 public key (JWK)', params: idParams,
    body: ed25519Jwk, status: 201, response: walletAddressKey, errors: [400, 401, 404, 409],
  },
  {
    method: 'get', path: '/wallet-addresses/{id}/keys', summary: "List a wallet address's keys", params: idParams,
    status: 200, response: z.object({ items: z.array(walletAddressKey) }), errors: [401, 404],
  },
  {
    method: 'post', path: '/wallet-addresses/{id}/keys/{kid}/revoke', summary: 'Revoke a key (idempotent)', params: keyParams,
    status: 200, response: walletAddressKey, errors: [401, 404],
  },
  {
    method: 'post', path: '/rates', summary: 'Push an exchange rate (with peerId: for that peer; without: FSP-wide)', body: pushRateBody,
    status: 201, response: rate, errors: [400, 401],
  },
  {
    method: 'get', path: '/rates', summary: 'The rate the service would use now (pushed, else pulled from cache, else a synchronous pull)',
    query: rateQuery, status: 200, response: rate, errors: [400, 401, 422],
  },
  {
    method: 'post', path: '/payment-intents', summary: "Create a payment intent (incoming payment) on the recipient's wallet address",
    body: createIntentBody, status: 201, response: paymentIntent, errors: [400, 401, 422],
  },
  { method: 'get', path: '/payment-intents/{id}', summary: 'Get a payment intent', params: idParams, status: 200, response: paymentIntent, errors: [401, 404] },
  {
    method: 'post', path: '/payment-intents/{id}/complete', summary: 'Complete a pending or processing payment intent', params: idParams,
    status: 200, response: paymentIntent, errors: [401, 404, 409],
  },
  {
    method: 'post', path: '/payment-intents/{id}/withdraw', summary: 'Settle what the payment intent received to the FSP', params: idParams,
    status: 200, response: paymentIntent.extend({ withdrawnAmount: amount }), errors: [401, 404, 409],
  },
  {
    method: 'post', path: '/quotes', summary: "Create a quote on the sender's wallet address to an incoming payment URL of this node or another (probed over Interledger; 502 when the receiver's node or the peer fails)", body: createQuoteBody,
    status: 201, response: quote, errors: [400, 401, 422, 502],
  },
  { method: 'get', path: '/quotes/{id}', summary: 'Get a quote', params: idParams, status: 200, response: quote, errors: [401, 404] },
  {
    method: 'post', path: '/payments', summary: 'Create a payment from an unexpired, unused quote (emits payment.created)', body: createPaymentBody,
    status: 201, response: payment, errors: [400, 401, 409, 422],
  },
  { method: 'get', path: '/payments/{id}', summary: 'Get a payment', params: idParams, status: 200, response: payment, errors: [401, 404] },
  {
    method: 'post', path: '/payments/{id}/fund', summary: 'Fund (approve) a payment with exactly its debit amount; it is then sent',
    params: idParams, status: 200, response: payment, errors: [401, 404, 409],
  },
  { method: 'post', path: '/payments/{id}/cancel', summary: 'Cancel a payment that is not funded', params: idParams, status: 200, response: payment, errors: [401, 404, 409] },
  {
    method: 'post', path: '/payments/{id}/withdraw', summary: "Settle what is left in a failed payment's account back to the FSP", params: idParams,
    status: 200, response: payment.extend({ withdrawnAmount: amount }), errors: [401, 404, 409],
  },
  {
    method: 'post', path: '/peers', summary: 'Create a peer (incoming tokens are never echoed)', body: createPeerBody,
    status: 201, response: peer, errors: [400, 401, 409, 422],
  },
  { method: 'get', path: '/peers', summary: 'List peers, newest first', query: pageQuery, status: 200, response: page(peer), errors: [400, 401] },
  { method: 'get', path: '/peers/{id}', summary: 'Get a peer and its liquidity', params: idParams, status: 200, response: peerWithLiquidity, errors: [401, 404] },
  {
    method: 'patch', path: '/peers/{id}', summary: "Change a peer's name, tokens, endpoint, maxPacketAmount or liquidityThreshold", params: idParams,
    body: updatePeerBody, status: 200, response: peer, errors: [400, 401, 404, 409],
  },
  { method: 'delete', path: '/peers/{id}', summary: 'Delete a peer that holds no liquidity', params: idParams, status: 204, response: z.null(), errors: [401, 404, 409] },
  {
    method: 'post', path: '/peers/{id}/liquidity', summary: "Deposit peer liquidity: the credit line extended to the peer", params: idParams,
    body: liquidityBody, status: 200, response: peerWithLiquidity, errors: [400, 401, 404],
  },
  {
    method: 'post', path: '/peers/{id}/liquidity-withdrawals', summary: 'Withdraw peer liquidity', params: idParams,
    body: liquidityBody, status: 200, response: peerWithLiquidity, errors: [400, 401, 404, 422],
  },
  {
    method: 'get', path: '/webhook-events', summary: 'List webhook events, newest first: all, or by delivery status, type and resource', query: listQuery,
    status: 200, response: page(webhookEvent), errors: [400, 401],
  },
  {
    method: 'get', path: '/webhook-events/{id}', summary: 'A webhook event with every delivery attempt', params: eventIdParams,
    status: 200, response: webhookEvent, errors: [401, 404],
  },
  {
    method: 'post', path: '/webhook-events/{id}/redeliver', summary: 'Send a delivered or failed event again (same id)', params: eventIdParams,
    status: 202, response: webhookEvent, errors: [401, 404, 409],
  },
];

const problemSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { field: { type: 'string' }, message: { type: 'string' } } } },
  },
};

const schemaOf = (s: z.ZodType, io: 'input' | 'output') => {
  const { $schema, ...rest } = z.toJSONSchema(s, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
};

function parameters(where: 'path' | 'query', obj?: z.ZodObject) {
  if (!obj) return [];
  const json = schemaOf(obj, 'input') as { properties: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties).map(([name, schema]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema,
  }));
}

export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of operations) {
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      summary: op.summary,
      security: [{ signature: [] }],
      parameters: [
        ...parameters('path', op.params),
        ...parameters('query', op.query),
        ...(op.method === 'post' ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: 255 } }] : []),
      ],
      ...(op.body && { requestBody: { required: true, content: { 'application/json': { schema: schemaOf(op.body, 'input') } } } }),
      responses: {
        [op.status]: op.status === 204 ? { description: 'Done' } : { description: 'Success', content: { 'application/json': { schema: schemaOf(op.response, 'output') } } },
        ...Object.fromEntries(
          op.errors.map((s) => [s, { description: 'Problem', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } }]),
        ),
      },
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Payment service Admin API',
      version: '0.1.0',
      description:
        'Every request carries `signature: t=<unix seconds, optionally with a fraction>, v1=<hex HMAC-SHA256(ADMIN_API_SECRET, "<t>.<METHOD>.<path with query>.<Idempotency-Key header value, empty if none>.<raw body>")>`, ' +
        '`t` signed exactly as sent. Signatures are valid for 300 s; a non-GET signature is accepted once.',
    },
    components: {
      schemas: { Problem: problemSchema },
      securitySchemes: { signature: { type: 'apiKey', in: 'header', name: 'signature' } },
    },
    paths,
  };
}
