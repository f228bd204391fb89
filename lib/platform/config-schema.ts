import * as z from 'zod';
import { type Node, OPERATOR, QUOTE_PRICINGS, WEBHOOK_DIALECTS } from '../shared/node';
import { tenantId } from '../shared/values';

// Every setting the Lambda functions read, validated once at cold start. A bad or missing value
// fails here with the variable's name, not later inside a request.
const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));

const optionalUrl = z.preprocess((v) => (v === '' ? undefined : v), url.optional());
const seconds = (fallback: number) => z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().positive().default(fallback));

// 'true' or 'false' (also 1 or 0); unset or empty: the default.
const flag = (fallback: boolean) =>
  z.preprocess(
    (v) => (v === '' || v === undefined ? fallback : v === 'true' || v === '1' ? true : v === 'false' || v === '0' ? false : v),
    z.boolean({ error: 'must be true or false' }),
  );

function isKeySet(text: string): boolean {
  try {
    return Array.isArray(JSON.parse(text)?.keys);
  } catch {
    return false;
  }
}

// The 30 s retry comes past the Idempotency-Key lock (the Admin function's 25 s timeout) of an FSP's
// funding cut off in the middle, and well before the quote (QUOTE_LIFETIME_SECS, 300 s) expires, so
// that the payment.created webhook funds the payment then (docs/webhooks.md, "When retries come").
const DEFAULT_WEBHOOK_SCHEDULE = '5,30,300,1800,7200,18000,36000,50400,72000,86400';

const schema = z.object({
  MAIN_TABLE: z.string().min(1),
  RATES_TABLE: z.string().min(1),
  IDEMPOTENCY_TABLE: z.string().min(1),
  EVENT_BUS_NAME: z.string().min(1),
  // The audit trail's write-once bucket (infra/resources.yml AuditBucket); AWS_ENDPOINT_URL_S3, set
  // by the local run only, points its calls at the local write-once store.
  AUDIT_BUCKET: z.string().min(1),
  AWS_ENDPOINT_URL_S3: optionalUrl,
  PAYMENTS_QUEUE_URL: url,
  WALLET_ADDRESS_URL: url,
  AUTH_SERVER_URL: url,
  EXCHANGE_RATES_URL: optionalUrl,
  EXCHANGE_RATES_LIFETIME_SECS: seconds(3600),
  EXCHANGE_RATES_TIMEOUT_SECS: seconds(10),
  EXCHANGE_RATES_REFRESH_BEFORE_SECS: seconds(120),
  QUOTE_LIFETIME_SECS: seconds(300),
  // How long a two-phase liquidity withdrawal holds its amount before it is voided unless posted:
  // 1 second to 30 days; a week by default, so that a bank transfer over a long weekend is not
  // voided while it runs (a void returns money to liquidity that may have left at the bank).
  LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(2_592_000).default(604_800)),
  WEBHOOK_EVENTS_TABLE: z.string().min(1),
  WEBHOOK_QUEUE_URL: url,
  WEBHOOK_PARKING_QUEUE_URL: url,
  // Unset URL (or secret, lib/platform/secrets.ts): deliveries fail (and are retried) with an error that says so.
  WEBHOOK_URL: optionalUrl,
  // How webhooks are sent: `standard` (Standard Webhooks, our event names) or `rafiki` (Rafiki's
  // names, data and Rafiki-Signature: docs/webhooks.md); a tenant may choose its own.
  WEBHOOK_DIALECT: z.preprocess((v) => (v === '' ? undefined : v), z.enum(WEBHOOK_DIALECTS).default('standard')),
  // Under the webhook sender's own timeout (30 s in serverless.yml), with room to record the attempt.
  WEBHOOK_TIMEOUT_SECS: seconds(10).refine((n) => n <= 25, "must be at most 25: the webhook sender's timeout is 30 s"),
  AUTH_TABLE: z.string().min(1),
  // How long an Open Payments access token lives.
  ACCESS_TOKEN_EXPIRY_SECS: seconds(600),
  // The FSP's consent page (Rafiki's Identity Provider interface: docs/open-payments.md), where an
  // interactive grant's start URL sends the user; unset: interaction is not offered (501).
  IDP_CONSENT_URL: optionalUrl,
  // How long a user has to consent and come back to the app, and then the app to continue.
  INTERACTION_EXPIRY_SECS: seconds(600),
  // GNAP's `wait`: how long a client waits between two polls of a pending grant.
  GNAP_WAIT_SECS: seconds(5),
  // The key id under which the node's own Open Payments client key is published
  // (<WALLET_ADDRESS_URL>/.well-known/pay/jwks.json): what an FSP registers elsewhere, with the key
  // itself in OPEN_PAYMENTS_CLIENT_SECRET (lib/open-payments/identity.ts); unset: one made from the key.
  OPEN_PAYMENTS_CLIENT_KEY_ID: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^[\x21-\x7e]{1,256}$/, 'must be 1 to 256 printable characters, no spaces')
      .optional(),
  ),
  // How long an Open Payments GET of an unknown wallet address waits (polling) for the FSP to make
  // it after wallet_address.not_found, as Rafiki's WALLET_ADDRESS_LOOKUP_TIMEOUT_MS; 0: not at all.
  WALLET_ADDRESS_NOT_FOUND_WAIT_MS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(10_000).default(0)),
  // How many grant requests one client (a wallet address, or a key it gives) may make a minute.
  GRANT_REQUESTS_PER_MINUTE: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(1_000_000).default(120)),
  // The AWS region the node runs in (Lambda sets it): the resource server signs its calls to the
  // authorization server's introspection endpoint for it.
  AWS_REGION: z.string().min(1).default('us-east-1'),
  // Where secrets live in Secrets Manager (lib/platform/secrets.ts); empty: they come from the environment.
  SECRETS_PREFIX: z.string().default(''),
  // How a tenant's secrets are made (lib/platform/secrets.ts createTenantSecrets), set by packaging
  // on the functions that make them (infra/serverless/tenant-secrets.cjs): the data key's ARN, the
  // rotation function's (its alias's), and the ARN patterns of who may read them (comma-separated).
  TENANT_SECRETS_KMS_KEY_ARN: z.preprocess((v) => (v === '' ? undefined : v), z.string().startsWith('arn:').optional()),
  TENANT_SECRETS_ROTATION_ARN: z.preprocess((v) => (v === '' ? undefined : v), z.string().startsWith('arn:').optional()),
  TENANT_SECRETS_READERS: z
    .preprocess((v) => (v === undefined ? '' : v), z.string())
    .transform((v) =>
      v
        .split(',')
        .map((r) => r.trim())
        .filter(Boolean),
    )
    .refine((list) => list.every((r) => r.startsWith('arn:')), 'must be ARNs, comma-separated'),
  // Local development only: let outbound fetches of URLs that clients and other nodes choose
  // (lib/platform/net/fetch.ts) reach loopback and private addresses, as nodes on one machine must.
  ALLOW_PRIVATE_FETCH: flag(false),
  // The tenants whose peers' connectors may be at loopback, private and other internal addresses
  // (an FSP's own network): their ids, comma-separated, `operator` for the operator's own peers;
  // empty: none (npm start: operator, for nodes on one machine).
  ALLOW_PRIVATE_PEERS: z
    .preprocess((v) => (v === undefined ? '' : v), z.string())
    .transform((s) =>
      s
        .split(',')
        .map((id) => id.trim().toLowerCase())
        .filter(Boolean),
    )
    .refine((ids) => ids.every((id) => tenantId.safeParse(id).success), 'must be tenant ids (uuids) or operator, comma-separated'),
  // Peering by URL (Rafiki's auto-peering, docs/interledger.md): whether this node answers peering
  // requests (POST /peering on its connector's API) and makes them (POST /peers/by-url); off unless set.
  AUTO_PEERING_ENABLED: flag(false),
  // Where other nodes send this node's packets (its connector's /ilp), which a peering exchange tells
  // them, as Rafiki's ILP_CONNECTOR_URL; needed when AUTO_PEERING_ENABLED (npm start sets it).
  ILP_CONNECTOR_URL: optionalUrl,
  // This node's ILP address, under which its incoming payments receive (e.g. g.example.wallet).
  ILP_ADDRESS: z.string().regex(/^(g|private|example|peer|self|test[1-3]?|local)([.][a-zA-Z0-9_~-]+)+$/, 'must be an ILP address, e.g. test.node-a'),
  // How far below the expected rate (a fraction) a payment over Interledger may deliver at: the
  // rate probe must find at least the expected rate less this, and every packet must meet it.
  SLIPPAGE: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().min(0).max(0.5).default(0.01)),
  // How quotes are priced (lib/quotes/pricing.ts): this service's way, or Rafiki's (SLIPPAGE taken
  // off the rate of an Interledger quote), so that an FSP moving from Rafiki keeps its amounts.
  QUOTE_PRICING: z.preprocess((v) => (v === '' ? undefined : v), z.enum(QUOTE_PRICINGS).default('ours')),
  // Whether an Open Payments app may pay a quote another client made for the same wallet address
  // (Rafiki's rule: its own suite pays a quote one client made with a payment another makes); by
  // default an app pays only the quotes it made (403 otherwise). The grant's limits bound it either way.
  OPEN_PAYMENTS_ANY_CLIENT_QUOTES: flag(false),
  // Whether new payment intents wait for the FSP's approval (pending_approval), for wallet
  // addresses that do not say (their approvalRequired).
  INCOMING_APPROVAL_REQUIRED: flag(false),
  // Whether a wallet address answers SPSP (Interledger RFC 9: GET with Accept application/spsp4+json)
  // with STREAM credentials for an open payment intent (lib/ilp/spsp.ts), as Rafiki's does by default.
  ENABLE_SPSP_PAYMENT_POINTERS: flag(true),
  // What becomes of what a payment intent with an incomingAmount received when it closes short
  // (expired, or completed by the FSP): kept by the recipient, or returned to the local payments
  // that paid it (docs/payments.md).
  INCOMING_PARTIAL_PAYMENTS: z.preprocess((v) => (v === '' ? undefined : v), z.enum(['keep', 'return']).default('keep')),
  // The console's sign-in on AWS: Cognito's hosted sign-in (the user pool's domain) and the console's
  // app client (infra/resources.yml sets both on the console's function); unset: the local sign-in
  // of npm start. CONSOLE_NAME: what the page calls the node (npm start: "A", "B"); else ILP_ADDRESS.
  CONSOLE_SIGN_IN_URL: optionalUrl,
  CONSOLE_CLIENT_ID: z.string().default(''),
  // Whose ID tokens name the console's operators (every Admin function verifies the token itself,
  // lib/api/http/operator-token.ts): the stage's Cognito user pool and the console's app client (the
  // template sets both); unset, no operator is taken. CONSOLE_JWKS, local only: the local sign-in's
  // public keys, which stand in for the pool's (npm start sets it); on AWS they come from Cognito.
  CONSOLE_USER_POOL_ID: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^(?:eusc-[a-z]{2}|[a-z]{2})-(?:gov-)?[a-z]+-\d_[a-zA-Z0-9]+$/, 'must be a Cognito user pool id, e.g. us-east-1_AbC123')
      .optional(),
  ),
  CONSOLE_JWKS: z.preprocess((v) => (v === '' ? undefined : v), z.string().refine(isKeySet, 'must be a JSON Web Key Set: {"keys": [...]}').optional()),
  // The id the operator's own tenant also answers to in the Admin API's tenant-id header, besides
  // "operator": an FSP moving from Rafiki keeps its operator tenant's id (a UUID) in its clients.
  // Whether /graphql answers introspection (its schema, to tools that ask): off unless set, as in
  // production; `npm start` sets it.
  GRAPHQL_INTROSPECTION: flag(false),
  OPERATOR_TENANT_ID: z.preprocess((v) => (v === '' ? undefined : v), tenantId.optional()),
  CONSOLE_NAME: z.string().default(''),
  WEBHOOK_RETRY_SCHEDULE_SECS: z
    .preprocess((v) => (v === '' || v === undefined ? DEFAULT_WEBHOOK_SCHEDULE : v), z.string())
    .transform((s) => s.split(',').map((x) => Number(x.trim())))
    .refine((a) => a.every((n) => Number.isFinite(n) && n >= 0), 'must be comma-separated non-negative numbers of seconds'),
});

export type Config = z.infer<typeof schema>;

// What one setting needs of another.
const refined = schema.refine((c) => !c.AUTO_PEERING_ENABLED || c.ILP_CONNECTOR_URL, {
  path: ['ILP_CONNECTOR_URL'],
  message: 'must be set when AUTO_PEERING_ENABLED is true: a peering exchange tells the other node where to send packets',
});

// The process's own switches, beside the node's settings: Lambda's tracing (Lambda sets its
// variables; TRACES_ENABLED=false turns it off).
const runtimeSchema = z.object({
  TRACES_ENABLED: flag(true),
  // Local runs only (serverless.yml does not pass it): https URLs fetched over plain http, as
  // Rafiki's nodes do in development, for nodes whose ids are https but serve http (lib/platform/net/fetch.ts).
  LOCAL_FETCH_HTTPS_AS_HTTP: flag(false),
  // Local runs only (serverless.yml does not pass it): how long secrets are cached (lib/platform/secrets.ts),
  // 300 s on AWS, shorter for a test that rotates one (a rotation waits as long before it finishes).
  LOCAL_SECRETS_CACHE_SECS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(0).max(300).default(300)),
  AWS_LAMBDA_FUNCTION_NAME: z.string().optional(),
  AWS_XRAY_DAEMON_ADDRESS: z.string().optional(),
  _HANDLER: z.string().default('handler'),
  _X_AMZN_TRACE_ID: z.string().optional(),
});

export type RuntimeSettings = z.infer<typeof runtimeSchema>;

export const readRuntime = (env: NodeJS.ProcessEnv): RuntimeSettings => parsed(runtimeSchema, env);

export const readConfig = (env: NodeJS.ProcessEnv): Config => parsed(refined, env);

function parsed<T>(s: z.ZodType<T>, env: NodeJS.ProcessEnv): T {
  const result = s.safeParse(env);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  return result.data;
}

// The node the deployment's settings describe: the operator's (lib/shared/node.ts nodeFor makes a tenant's).
export function nodeOf(c: Config): Node {
  return {
    tenant: OPERATOR,
    ilpAddress: c.ILP_ADDRESS,
    urls: {
      walletAddresses: c.WALLET_ADDRESS_URL,
      resourceServer: new URL(c.WALLET_ADDRESS_URL).origin,
      authServer: c.AUTH_SERVER_URL,
      consent: c.IDP_CONSENT_URL,
    },
    deploymentOrigin: new URL(c.WALLET_ADDRESS_URL).origin,
    tables: { main: c.MAIN_TABLE, rates: c.RATES_TABLE, auth: c.AUTH_TABLE, webhookEvents: c.WEBHOOK_EVENTS_TABLE, idempotency: c.IDEMPOTENCY_TABLE },
    queues: { payments: c.PAYMENTS_QUEUE_URL, webhooks: c.WEBHOOK_QUEUE_URL, webhookParking: c.WEBHOOK_PARKING_QUEUE_URL },
    eventBus: c.EVENT_BUS_NAME,
    audit: { name: c.AUDIT_BUCKET, region: c.AWS_REGION, ...(c.AWS_ENDPOINT_URL_S3 && { endpoint: c.AWS_ENDPOINT_URL_S3 }) },
    secretsPrefix: c.SECRETS_PREFIX,
    tenantSecrets: { kmsKeyArn: c.TENANT_SECRETS_KMS_KEY_ARN, rotationArn: c.TENANT_SECRETS_ROTATION_ARN, readers: c.TENANT_SECRETS_READERS },
    region: c.AWS_REGION,
    quoteLifetimeSecs: c.QUOTE_LIFETIME_SECS,
    liquidityWithdrawalTimeoutSecs: c.LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS,
    slippage: c.SLIPPAGE,
    quotePricing: c.QUOTE_PRICING,
    anyClientQuotes: c.OPEN_PAYMENTS_ANY_CLIENT_QUOTES,
    incoming: { approvalRequired: c.INCOMING_APPROVAL_REQUIRED, partialPayments: c.INCOMING_PARTIAL_PAYMENTS },
    accessTokenExpirySecs: c.ACCESS_TOKEN_EXPIRY_SECS,
    interactionExpirySecs: c.INTERACTION_EXPIRY_SECS,
    gnapWaitSecs: c.GNAP_WAIT_SECS,
    openPaymentsClientKeyId: c.OPEN_PAYMENTS_CLIENT_KEY_ID,
    notFoundWaitMs: c.WALLET_ADDRESS_NOT_FOUND_WAIT_MS,
    grantRequestsPerMinute: c.GRANT_REQUESTS_PER_MINUTE,
    allowPrivateFetch: c.ALLOW_PRIVATE_FETCH,
    spspEnabled: c.ENABLE_SPSP_PAYMENT_POINTERS,
    privatePeers: c.ALLOW_PRIVATE_PEERS,
    autoPeering: { enabled: c.AUTO_PEERING_ENABLED, connectorUrl: c.ILP_CONNECTOR_URL },
    rates: {
      url: c.EXCHANGE_RATES_URL,
      lifetimeSecs: c.EXCHANGE_RATES_LIFETIME_SECS,
      timeoutSecs: c.EXCHANGE_RATES_TIMEOUT_SECS,
      refreshBeforeSecs: c.EXCHANGE_RATES_REFRESH_BEFORE_SECS,
    },
    webhooks: { url: c.WEBHOOK_URL, dialect: c.WEBHOOK_DIALECT, timeoutSecs: c.WEBHOOK_TIMEOUT_SECS, retryScheduleSecs: c.WEBHOOK_RETRY_SCHEDULE_SECS },
  };
}
