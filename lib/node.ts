import type { Config } from './config-schema';

// The node a piece of code works for: which ILP address, base URLs, tables, queues, secrets and
// settings. Each entry point (an API's adapter, a queue or stream consumer, a schedule) resolves
// it once and passes it down; domain code reads nothing else about where it runs. A second tenant
// in one deployment would be one more field here (its id) and a prefix in each store's keys.
export interface Node {
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
  // Where its secrets live in Secrets Manager (lib/secrets.ts reads them); empty: the environment.
  secretsPrefix: string;
  region: string; // AWS_REGION
  quoteLifetimeSecs: number;
  slippage: number;
  accessTokenExpirySecs: number;
  interactionExpirySecs: number;
  gnapWaitSecs: number;
  grantRequestsPerMinute: number; // per client: more in a minute are 429
  // Local only: outbound fetches of client-chosen URLs may reach loopback and private addresses.
  allowPrivateFetch: boolean;
  rates: { url?: string; lifetimeSecs: number; timeoutSecs: number; refreshBeforeSecs: number };
  webhooks: { url?: string; timeoutSecs: number; retryScheduleSecs: number[] };
}

export function nodeOf(c: Config): Node {
  return {
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
    slippage: c.SLIPPAGE,
    accessTokenExpirySecs: c.ACCESS_TOKEN_EXPIRY_SECS,
    interactionExpirySecs: c.INTERACTION_EXPIRY_SECS,
    gnapWaitSecs: c.GNAP_WAIT_SECS,
    grantRequestsPerMinute: c.GRANT_REQUESTS_PER_MINUTE,
    allowPrivateFetch: c.ALLOW_PRIVATE_FETCH,
    rates: {
      url: c.EXCHANGE_RATES_URL,
      lifetimeSecs: c.EXCHANGE_RATES_LIFETIME_SECS,
      timeoutSecs: c.EXCHANGE_RATES_TIMEOUT_SECS,
      refreshBeforeSecs: c.EXCHANGE_RATES_REFRESH_BEFORE_SECS,
    },
    webhooks: { url: c.WEBHOOK_URL, timeoutSecs: c.WEBHOOK_TIMEOUT_SECS, retryScheduleSecs: c.WEBHOOK_RETRY_SCHEDULE_SECS },
  };
}
