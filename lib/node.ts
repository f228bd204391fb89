import type { Config } from './config-schema';

// The node a piece of code works for: the tenant, its ILP address, base URLs, tables, queues,
// secrets and settings. Each entry point (an API's adapter, a queue or stream consumer, a
// schedule) resolves it once per request or message and passes it down; domain code reads nothing
// else about where it runs. A tenant is one FSP of the deployment: the operator's (made at
// deploy, the only one of a single-tenant deployment) or one the operator made (lib/tenants).
// Every store builds its partition keys with lib/store.ts scoped(), which adds the tenant.
export interface Tenant {
  id: string;
  operator: boolean;
}

export const OPERATOR_TENANT_ID = 'operator';
export const OPERATOR: Tenant = { id: OPERATOR_TENANT_ID, operator: true };

// What a tenant sets for itself (lib/tenants keeps it): the rest is the deployment's.
export interface TenantSettings {
  id: string;
  walletAddressPrefix: string;
  ilpAddressSuffix: string;
  webhookUrl?: string;
  ratesUrl?: string;
  idpConsentUrl?: string;
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
  tables: { main: string; rates: string; auth: string; webhookEvents: string; idempotency: string };
  queues: { payments: string; webhooks: string; webhookParking: string };
  eventBus: string;
  // Where the deployment's secrets live in Secrets Manager (lib/secrets.ts reads them, and a
  // tenant's under `tenants/<id>/` below it); empty: the environment (a tenant's: still Secrets Manager).
  secretsPrefix: string;
  region: string; // AWS_REGION
  quoteLifetimeSecs: number;
  liquidityWithdrawalTimeoutSecs: number;
  slippage: number;
  // INCOMING_APPROVAL_REQUIRED and INCOMING_PARTIAL_PAYMENTS (lib/payment-intents).
  incoming: { approvalRequired: boolean; partialPayments: 'keep' | 'return' };
  accessTokenExpirySecs: number;
  interactionExpirySecs: number;
  gnapWaitSecs: number;
  grantRequestsPerMinute: number; // per client: more in a minute are 429
  // Local only: outbound fetches of client-chosen URLs may reach loopback and private addresses.
  allowPrivateFetch: boolean;
  // ALLOW_PRIVATE_PEERS: the tenants (by id, `operator` for the operator) whose peers' connectors
  // may be at loopback, private and other internal addresses (mayPeerPrivately).
  privatePeers: readonly string[];
  rates: { url?: string; lifetimeSecs: number; timeoutSecs: number; refreshBeforeSecs: number };
  webhooks: { url?: string; timeoutSecs: number; retryScheduleSecs: number[] };
}

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
    tables: { main: c.MAIN_TABLE, rates: c.RATES_TABLE, auth: c.AUTH_TABLE, webhookEvents: c.WEBHOOK_EVENTS_TABLE, idempotency: c.IDEMPOTENCY_TABLE },
    queues: { payments: c.PAYMENTS_QUEUE_URL, webhooks: c.WEBHOOK_QUEUE_URL, webhookParking: c.WEBHOOK_PARKING_QUEUE_URL },
    eventBus: c.EVENT_BUS_NAME,
    secretsPrefix: c.SECRETS_PREFIX,
    region: c.AWS_REGION,
    quoteLifetimeSecs: c.QUOTE_LIFETIME_SECS,
    liquidityWithdrawalTimeoutSecs: c.LIQUIDITY_WITHDRAWAL_TIMEOUT_SECS,
    slippage: c.SLIPPAGE,
    incoming: { approvalRequired: c.INCOMING_APPROVAL_REQUIRED, partialPayments: c.INCOMING_PARTIAL_PAYMENTS },
    accessTokenExpirySecs: c.ACCESS_TOKEN_EXPIRY_SECS,
    interactionExpirySecs: c.INTERACTION_EXPIRY_SECS,
    gnapWaitSecs: c.GNAP_WAIT_SECS,
    grantRequestsPerMinute: c.GRANT_REQUESTS_PER_MINUTE,
    allowPrivateFetch: c.ALLOW_PRIVATE_FETCH,
    privatePeers: c.ALLOW_PRIVATE_PEERS,
    rates: {
      url: c.EXCHANGE_RATES_URL,
      lifetimeSecs: c.EXCHANGE_RATES_LIFETIME_SECS,
      timeoutSecs: c.EXCHANGE_RATES_TIMEOUT_SECS,
      refreshBeforeSecs: c.EXCHANGE_RATES_REFRESH_BEFORE_SECS,
    },
    webhooks: { url: c.WEBHOOK_URL, timeoutSecs: c.WEBHOOK_TIMEOUT_SECS, retryScheduleSecs: c.WEBHOOK_RETRY_SCHEDULE_SECS },
  };
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
    webhooks: { ...base.webhooks, url: t.webhookUrl },
  };
}

// Whether this node's peers may be at internal addresses: a tenant's only when the deployment names it.
export const mayPeerPrivately = (node: Node) => node.privatePeers.includes(node.tenant.id);

// Where a tenant's Open Payments servers are: `<resource server>/t/<id>`, `<AUTH_SERVER_URL>/t/<id>`.
export const TENANT_PATH = '/t/';
