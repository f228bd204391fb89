// The Admin API's OpenAPI 3.1 document, built from the route table (lib/api/routes) and the same zod
// schemas that validate requests. Tests lint the document with Redocly and build a typed client
// from it (test/unit/openapi-*.test.ts).
import * as z from 'zod';
import { asset, assetWithLiquidity, createAssetBody, feeSchedule, liquidityBody, liquidityWithdrawalBody, updateAssetBody } from '../assets/schemas';
import { auditEvent } from '../audit/schemas';
import { grant } from '../auth-server/admin-schemas';
import { ledgerCheck, ledgerTransfer } from '../ledger-check/schemas';
import { liquidityWithdrawal } from '../liquidity-withdrawals/schemas';
import { cancelIntentBody, createIntentBody, paymentIntent } from '../payment-intents/schemas';
import { createPaymentBody, payment } from '../payments/schemas';
import { createPeerBody, peer, peerByUrlBody, peerWithLiquidity, reconciliation, unansweredPacket, updatePeerBody } from '../peers/schemas';
import { createQuoteBody, quote } from '../quotes/schemas';
import { pushRateBody, rate } from '../rates/schemas';
import { completeReceiverBody, createReceiverBody, receiver } from '../receivers/schemas';
import { searchResult } from '../search/schemas';
import { amount } from '../shared/amounts';
import { type CatalogEntry, commonErrors } from '../shared/errors';
import { pageLimit } from '../shared/values';
import { createdTenant, createTenantBody, tenant, updateTenantBody } from '../tenants/schemas';
import { createWalletAddressBody, ed25519Jwk, updateWalletAddressBody, walletAddress, walletAddressKey } from '../wallet-addresses/schemas';
import { webhookBody, webhookEvents } from '../webhooks/catalog';
import { attempt, webhookEvent } from '../webhooks/schemas';
import { httpErrors } from './http/errors';
import { type Problem, problem } from './http/problem';
import { MAX_BODY_BYTES } from './http/schemas';
import {
  allRoutes,
  assetLiquidityWithdrawn,
  assetPage,
  auditEventPage,
  grantPage,
  ledgerTransferPage,
  liquidityWithdrawalPage,
  openApiDocumentSchema,
  paymentIntentPage,
  paymentIntentWithdrawal,
  paymentPage,
  paymentWithdrawal,
  peerLiquidityWithdrawn,
  peerPage,
  queryFields,
  type Route,
  tags,
  takesIdempotencyKey,
  tenantPage,
  walletAddressKeyList,
  walletAddressOrPage,
  walletAddressPage,
  webhookEventPage,
} from './routes';

const fieldError = z.object({ field: z.string(), message: z.string() });
// What lib/api/http/problem.ts answers (RFC 9457); `satisfies` keeps the two in step.
const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.int(),
  detail: z.string(),
  code: z.string(),
  errors: z.array(fieldError).optional(),
}) satisfies z.ZodType<Problem>;

// Component names, which generated clients take as type names. Request bodies are described as
// sent (zod's input), responses as answered (its output); Amount and Ed25519Jwk are both.
const requestSchemas = {
  Amount: amount,
  CreateAssetRequest: createAssetBody,
  UpdateAssetRequest: updateAssetBody,
  LiquidityRequest: liquidityBody,
  LiquidityWithdrawalRequest: liquidityWithdrawalBody,
  CreateWalletAddressRequest: createWalletAddressBody,
  UpdateWalletAddressRequest: updateWalletAddressBody,
  Ed25519Jwk: ed25519Jwk,
  PushRateRequest: pushRateBody,
  CreatePaymentIntentRequest: createIntentBody,
  CancelPaymentIntentRequest: cancelIntentBody,
  CreateReceiverRequest: createReceiverBody,
  CompleteReceiverRequest: completeReceiverBody,
  CreateQuoteRequest: createQuoteBody,
  CreatePaymentRequest: createPaymentBody,
  CreatePeerRequest: createPeerBody,
  UpdatePeerRequest: updatePeerBody,
  PeerByUrlRequest: peerByUrlBody,
  CreateTenantRequest: createTenantBody,
  UpdateTenantRequest: updateTenantBody,
};
const responseSchemas = {
  Amount: amount,
  Asset: asset,
  FeeSchedule: feeSchedule,
  AssetWithLiquidity: assetWithLiquidity,
  AssetPage: assetPage,
  LiquidityWithdrawal: liquidityWithdrawal,
  LiquidityWithdrawalPage: liquidityWithdrawalPage,
  AssetLiquidityWithdrawn: assetLiquidityWithdrawn,
  LedgerCheck: ledgerCheck,
  LedgerTransfer: ledgerTransfer,
  LedgerTransferPage: ledgerTransferPage,
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
  Receiver: receiver,
  Quote: quote,
  Payment: payment,
  PaymentPage: paymentPage,
  PaymentWithdrawal: paymentWithdrawal,
  Peer: peer,
  PeerWithLiquidity: peerWithLiquidity,
  PeerPage: peerPage,
  PeerLiquidityWithdrawn: peerLiquidityWithdrawn,
  UnansweredPacket: unansweredPacket,
  PeerReconciliation: reconciliation,
  Grant: grant,
  GrantPage: grantPage,
  WebhookDeliveryAttempt: attempt,
  WebhookEvent: webhookEvent,
  WebhookEventPage: webhookEventPage,
  Tenant: tenant,
  CreatedTenant: createdTenant,
  TenantPage: tenantPage,
  AuditEvent: auditEvent,
  AuditEventPage: auditEventPage,
  SearchResult: searchResult,
  FieldError: fieldError,
  Problem: problemSchema,
  OpenApiDocument: openApiDocumentSchema,
};

// What the FSP's webhook URL receives, one body per event type (lib/webhooks/catalog.ts), named
// from its type: payment_intent.created's is PaymentIntentCreatedEvent.
const pascal = (text: string) => text.replace(/(?:^|[._])([a-z])/g, (_, c: string) => c.toUpperCase());
const webhookBodies = Object.fromEntries(Object.entries(webhookEvents).map(([type, { data }]) => [`${pascal(type)}Event`, webhookBody(type, data)])) as Record<
  string,
  z.ZodType
>;

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
  const responses = componentSchemas({ ...responseSchemas, ...webhookBodies }, 'output');
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
  if (!id) throw new Error('A request body or response schema of lib/api/routes has no component name in lib/api/openapi.ts');
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
// The title lib/api/http/problem.ts gives a status.
const titleOf = (status: number) => problem(status, '', '').title;

const codeList = (entries: CatalogEntry[]) => entries.map((e) => `\`${e.code}\` (${e.title})`).join('; ');

const problemResponse = (description: string) => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: componentRef('Problem') } } },
});

// What the signed stack (lib/api/http/admin.ts) can answer on every route, from the catalogs.
const SHARED_PROBLEMS = {
  BadRequest: [commonErrors.invalidRequest, httpErrors.malformedJson, commonErrors.invalidCursor],
  Unauthorized: [httpErrors.unauthorized],
  Forbidden: [httpErrors.roleForbids],
  PayloadTooLarge: [httpErrors.payloadTooLarge],
  UnsupportedMediaType: [httpErrors.unsupportedMediaType],
} satisfies Record<string, CatalogEntry[]>;
const sharedResponses = {
  BadRequest: problemResponse(`Invalid request: ${codeList(SHARED_PROBLEMS.BadRequest)}, on a list for a cursor.`),
  UnsupportedMediaType: problemResponse(`${codeList(SHARED_PROBLEMS.UnsupportedMediaType)}.`),
  Unauthorized: problemResponse(
    `${codeList(SHARED_PROBLEMS.Unauthorized)}: the signature is missing, malformed, stale, wrong or used before; nothing changed.`,
  ),
  Forbidden: problemResponse(
    `${codeList(SHARED_PROBLEMS.Forbidden)}: from the console, the signed-in operator's role (viewer, operator, admin) or tenant does not allow this; nothing changed.`,
  ),
  PayloadTooLarge: problemResponse(`${codeList(SHARED_PROBLEMS.PayloadTooLarge)}: over ${MAX_BODY_BYTES / 1024} KiB.`),
  InternalError: problemResponse('The request could not be completed (`internal_error`); it is safe to retry.'),
};
const responseRef = (name: keyof typeof sharedResponses) => ({ $ref: `#/components/responses/${name}` });

// A route's own errors, plus the 404 of an id that cannot exist and, where it takes one, the
// Idempotency-Key's 409 and 422, each under its catalog status.
export function routeProblems(op: Pick<Route, 'problems' | 'params' | 'method' | 'answersSecrets'>): Map<number, CatalogEntry[]> {
  const entries = [
    ...(op.problems ?? []),
    ...(op.params ? [commonErrors.notFound] : []),
    ...(takesIdempotencyKey(op) ? [commonErrors.idempotencyKeyInProgress, commonErrors.idempotencyKeyReused] : []),
  ];
  const byStatus = new Map<number, CatalogEntry[]>();
  for (const e of [...entries].sort((a, b) => a.status - b.status)) byStatus.set(e.status, [...(byStatus.get(e.status) ?? []), e]);
  // A route with a 403 of its own lists the role's beside it (the shared 403 is a reference).
  if (byStatus.has(403)) byStatus.set(403, [...byStatus.get(403)!, ...SHARED_PROBLEMS.Forbidden]);
  return byStatus;
}

function responses(op: Route) {
  const description = SUCCESS[op.status];
  const success = op.response ? { description, content: { 'application/json': { schema: refTo(op.response, responseSchemas) } } } : { description };
  if (op.isPublic) return { [op.status]: success };
  const own = [...routeProblems(op)].map(([status, entries]) => [status, problemResponse(`${titleOf(status)}: ${codeList(entries)}.`)]);
  return {
    [op.status]: success,
    400: responseRef('BadRequest'),
    401: responseRef('Unauthorized'),
    403: responseRef('Forbidden'),
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
  'v3=<hex HMAC-SHA256(secret, "<t>\\n<METHOD>\\n<path with query>\\n<Idempotency-Key header value, empty if ' +
  'none>\\n<tenant-id header value, empty if none>\\n<raw body>")>`: the six fields joined by newlines, `t` in the ' +
  'signed string exactly as sent and `<raw body>` the exact bytes sent (empty for none). The secret is ' +
  "ADMIN_API_SECRET, or a tenant's own. A signature is valid for 300 s around the server's clock; a non-GET " +
  'signature is accepted once. Several `v3=` values may be sent (for secret rotation); one must match. A `v2=` ' +
  'signature (without the tenant) or `v1=` (fields joined by ".") is refused with 401.';

const IDEMPOTENCY_KEY =
  'Makes a retry safe (kept 24 h, per route): the same key and body replay the first response; the same key with ' +
  'another body or resource is 422 `idempotency_key_reused`; while the first request runs, 409 ' +
  '`idempotency_key_in_progress`. The key is part of the signed string.';

const TENANT_ID =
  "The tenant the request is for, signed with that tenant's Admin API secret; absent or `operator`: the operator's, " +
  "signed with the deployment's ADMIN_API_SECRET. An unknown or deleted tenant is 401, as a wrong signature is.";

const WEBHOOKS_TAG = {
  name: 'Webhooks',
  description:
    "What the service POSTs to the FSP's WEBHOOK_URL, one operation per event type, signed per Standard Webhooks " +
    '(https://www.standardwebhooks.com) with WEBHOOK_SECRET. Delivery is at least once: de-duplicate on `webhook-id`.',
};

const WEBHOOK_SIGNATURE =
  'Standard Webhooks: `v1,<base64 HMAC-SHA256(the secret after `whsec_`, base64-decoded; "<webhook-id>.<webhook-timestamp>.<raw body>")>`, ' +
  'several separated by spaces while the secret rotates; one must match. Verify it, and refuse an old timestamp, before reading the body.';

// The `webhooks` section: each event type of the catalog as the request the FSP's URL receives.
function webhooks() {
  return Object.fromEntries(
    Object.entries(webhookEvents).map(([type, { about }]) => [
      type,
      {
        post: {
          operationId: `${pascal(type).replace(/^./, (c) => c.toLowerCase())}Webhook`,
          tags: [WEBHOOKS_TAG.name],
          summary: type,
          description: about,
          security: [],
          parameters: [
            { $ref: '#/components/parameters/WebhookId' },
            { $ref: '#/components/parameters/WebhookTimestamp' },
            { $ref: '#/components/parameters/WebhookSignature' },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: { $ref: componentRef(`${pascal(type)}Event`) } } } },
          responses: {
            200: { description: 'Any 2xx: handled. Answer only once the event is handled; anything else is retried on WEBHOOK_RETRY_SCHEDULE_SECS.' },
            410: { description: 'Gone: no more attempts of this event.' },
          },
        },
      },
    ]),
  );
}

export function openApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const op of allRoutes) {
    paths[op.path] ??= {};
    paths[op.path][op.method] = {
      operationId: op.id,
      tags: [op.tag],
      summary: op.summary,
      ...(op.description && { description: op.description }),
      ...(op.isPublic && { security: [] }),
      parameters: [
        ...parameters('path', op.params),
        ...parameters('query', queryFields(op)),
        ...(op.isPublic ? [] : [{ $ref: '#/components/parameters/TenantId' }]),
        ...(takesIdempotencyKey(op) ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
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
      { url: 'http://localhost:6001', description: 'Node C on this machine (`npm run start:node-c`)' },
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
    tags: [...tags, WEBHOOKS_TAG],
    paths,
    webhooks: webhooks(),
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
        WebhookId: {
          name: 'webhook-id',
          in: 'header',
          required: true,
          description: "The event's id, the same on every attempt.",
          schema: { type: 'string' },
        },
        WebhookTimestamp: {
          name: 'webhook-timestamp',
          in: 'header',
          required: true,
          description: 'When this attempt was signed, in Unix seconds.',
          schema: { type: 'string', pattern: '^\\d+$' },
        },
        WebhookSignature: {
          name: 'webhook-signature',
          in: 'header',
          required: true,
          description: WEBHOOK_SIGNATURE,
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
