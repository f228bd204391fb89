// The node a piece of code works for: the tenant, its ILP address, base URLs, tables, queues,
// secrets and settings. Each entry point (an API's adapter, a queue or stream consumer, a
// schedule) resolves it once per request or message and passes it down; domain code reads nothing
// else about where it runs. A tenant is one FSP of the deployment: the operator's (made at
// deploy, the only one of a single-tenant deployment) or one the operator made (lib/tenants).
// Every store builds its partition keys with lib/platform/store.ts scoped(), which adds the tenant.
export interface Tenant {
  id: string;
  operator: boolean;
}

export const OPERATOR_TENANT_ID = 'operator';
export const OPERATOR: Tenant = { id: OPERATOR_TENANT_ID, operator: true };

// What a tenant sets for itself (lib/tenants keeps it): the rest is the deployment's.
// How webhooks are sent (lib/webhooks/deliver.ts): Standard Webhooks with our event names, or as
// Rafiki sends them (its names, `data` shapes and Rafiki-Signature), for an FSP built on Rafiki's.
export const WEBHOOK_DIALECTS = ['standard', 'rafiki'] as const;
export type WebhookDialect = (typeof WEBHOOK_DIALECTS)[number];

export interface TenantSettings {
  id: string;
  walletAddressPrefix: string;
  ilpAddressSuffix: string;
  webhookUrl?: string;
  webhookDialect?: WebhookDialect; // none: the deployment's WEBHOOK_DIALECT
  ratesUrl?: string;
  idpConsentUrl?: string;
}

// How quotes are priced: this service's way (the default) or Rafiki's (lib/quotes/pricing.ts).
export const QUOTE_PRICINGS = ['ours', 'rafiki'] as const;
export type QuotePricing = (typeof QUOTE_PRICINGS)[number];

// An S3 bucket as lib/platform/s3.ts calls it.
export interface Bucket {
  name: string;
  region: string;
  endpoint?: string; // AWS_ENDPOINT_URL_S3 (local runs): path-style requests to it
}

export interface Node {
  tenant: Tenant;
  ilpAddress: string;
  urls: {
    walletAddresses: string; // WALLET_ADDRESS_URL: every wallet address lives under it
    resourceServer: string; // its origin: the Open Payments resource server
    authServer: string;
    consent?: string; // IDP_CONSENT_URL: the FSP's consent page; none: interaction is not offered
  };
  // The origin this deployment's Open Payments servers answer at, the operator's and every tenant's
  // (a tenant's node keeps the deployment's): what a receiver URL may not name for another tenant.
  deploymentOrigin: string;
  tables: { main: string; rates: string; auth: string; webhookEvents: string; idempotency: string };
  queues: { payments: string; webhooks: string; webhookParking: string };
  eventBus: string;
  audit: Bucket; // AUDIT_BUCKET: the audit trail's write-once store (lib/audit)
  // Where the deployment's secrets live in Secrets Manager (lib/platform/secrets.ts reads them, and a
  // tenant's under `tenants/<id>/` below it); empty: the environment (a tenant's: still Secrets Manager).
  secretsPrefix: string;
  // How a tenant's secrets are made (lib/platform/secrets.ts createTenantSecrets): encrypted with the
  // KMS key of this ARN, rotated by the rotation function of this ARN, read only by the principals
  // these ARN patterns name (TENANT_SECRETS_*: on AWS packaging sets them; each unset, not applied).
  tenantSecrets: { kmsKeyArn?: string; rotationArn?: string; readers: string[] };
  region: string; // AWS_REGION
  quoteLifetimeSecs: number;
  liquidityWithdrawalTimeoutSecs: number;
  slippage: number;
  quotePricing: QuotePricing; // QUOTE_PRICING (lib/quotes/pricing.ts)
  anyClientQuotes: boolean; // OPEN_PAYMENTS_ANY_CLIENT_QUOTES (lib/payments createPaymentRecord)
  // INCOMING_APPROVAL_REQUIRED and INCOMING_PARTIAL_PAYMENTS (lib/payment-intents).
  incoming: { approvalRequired: boolean; partialPayments: 'keep' | 'return' };
  accessTokenExpirySecs: number;
  interactionExpirySecs: number;
  gnapWaitSecs: number;
  // OPEN_PAYMENTS_CLIENT_KEY_ID: the key id of the node's own Open Payments client key (lib/open-payments/identity.ts).
  openPaymentsClientKeyId?: string;
  // WALLET_ADDRESS_NOT_FOUND_WAIT_MS: how long a GET of an unknown wallet address waits for the FSP to make it.
  notFoundWaitMs: number;
  grantRequestsPerMinute: number; // per client: more in a minute are 429
  // Local only: outbound fetches of client-chosen URLs may reach loopback and private addresses.
  allowPrivateFetch: boolean;
  spspEnabled: boolean; // ENABLE_SPSP_PAYMENT_POINTERS: wallet addresses answer SPSP (lib/ilp/spsp.ts)
  // ALLOW_PRIVATE_PEERS: the tenants (by id, `operator` for the operator) whose peers' connectors
  // may be at loopback, private and other internal addresses (mayPeerPrivately).
  privatePeers: readonly string[];
  // AUTO_PEERING_ENABLED and ILP_CONNECTOR_URL (set when enabled): peering by URL (lib/peers peerByUrl).
  autoPeering: { enabled: boolean; connectorUrl?: string };
  rates: { url?: string; lifetimeSecs: number; timeoutSecs: number; refreshBeforeSecs: number };
  webhooks: { url?: string; dialect: WebhookDialect; timeoutSecs: number; retryScheduleSecs: number[] };
}

// The node as one tenant sees it: its own addresses, URLs and consent page under the deployment's
// tables, queues and limits. Its resource server (but for its wallet addresses, which are under its
// prefix) and its authorization server are paths of the deployment's, which name it.
export function nodeFor(base: Node, t: TenantSettings): Node {
  if (t.id === OPERATOR_TENANT_ID) return base;
  return {
    ...base,
    tenant: { id: t.id, operator: false },
    ilpAddress: `${base.ilpAddress}.${t.ilpAddressSuffix}`,
    urls: {
      walletAddresses: t.walletAddressPrefix,
      resourceServer: `${base.urls.resourceServer}${TENANT_PATH}${t.id}`,
      authServer: `${base.urls.authServer}${TENANT_PATH}${t.id}`,
      consent: t.idpConsentUrl,
    },
    rates: { ...base.rates, url: t.ratesUrl },
    webhooks: { ...base.webhooks, url: t.webhookUrl, dialect: t.webhookDialect ?? base.webhooks.dialect },
  };
}

// Whether this node's peers may be at internal addresses: a tenant's only when the deployment names it.
export const mayPeerPrivately = (node: Node) => node.privatePeers.includes(node.tenant.id);

// Where a tenant's Open Payments servers are: `<resource server>/t/<id>`, `<AUTH_SERVER_URL>/t/<id>`.
export const TENANT_PATH = '/t/';
