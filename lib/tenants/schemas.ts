import * as z from 'zod';
import { WEBHOOK_DIALECTS, type WebhookDialect } from '../shared/node';
import { printable, tenantId } from '../shared/values';
import { MAX_ADDRESS_SEGMENTS, MAX_PREFIX_SEGMENTS } from '../shared/wallet-address-url';

// Tenants: the FSPs one deployment serves besides its operator's. Each has its own wallet address
// prefix (where its wallet addresses live, and by which the Open Payments servers find it), ILP
// address suffix, webhook, rates and consent URLs, and secrets (in Secrets Manager).
const url = z.url({ protocol: /^https?$/ }).max(1024);
const name = printable(z.string().trim().min(1).max(200));
const webhookDialect = z.enum(WEBHOOK_DIALECTS).describe("How its webhooks are sent (docs/webhooks.md); none: the deployment's WEBHOOK_DIALECT");
// One segment of an ILP address (RFC 15): what follows the deployment's ILP address and a dot.
export const ilpAddressSuffix = z
  .string()
  .max(64)
  .regex(/^[a-zA-Z0-9_~-]+$/, 'must be one ILP address segment: letters, digits, "_", "~" and "-"');

export const createTenantBody = z.strictObject({
  name,
  // Checked against the deployment's WALLET_ADDRESS_URL and the other tenants' in lib/tenants.
  walletAddressPrefix: z
    .string()
    .max(1024)
    .describe(
      `An http(s) URL under WALLET_ADDRESS_URL, with at most ${MAX_PREFIX_SEGMENTS} path segments (WALLET_ADDRESS_URL's included): ` +
        `one fewer than a wallet address's ${MAX_ADDRESS_SEGMENTS}, so that one fits under it`,
    ),
  ilpAddressSuffix: ilpAddressSuffix.optional(),
  webhookUrl: url.optional(),
  webhookDialect: webhookDialect.optional(),
  ratesUrl: url.optional(),
  idpConsentUrl: url.optional(),
});
export type CreateTenant = z.infer<typeof createTenantBody>;

// null removes a URL, and a webhook dialect (the deployment's applies).
export const updateTenantBody = z
  .strictObject({
    name: name.optional(),
    webhookUrl: url.nullable().optional(),
    webhookDialect: webhookDialect.nullable().optional(),
    ratesUrl: url.nullable().optional(),
    idpConsentUrl: url.nullable().optional(),
  })
  .refine((b) => Object.keys(b).length > 0, 'must change something');
export type UpdateTenant = z.infer<typeof updateTenantBody>;

export const TENANT_STATES = ['active', 'deleted'] as const;

export const tenant = z.object({
  id: z.string(), // a uuid; `operator` for the deployment's own
  name: z.string(),
  walletAddressPrefix: z.string(),
  ilpAddressSuffix: z.string().nullable(), // none for the operator: its ILP address is the deployment's
  webhookUrl: z.string().nullable(),
  webhookDialect: webhookDialect.nullable(), // the operator's: WEBHOOK_DIALECT
  ratesUrl: z.string().nullable(),
  idpConsentUrl: z.string().nullable(),
  state: z.enum(TENANT_STATES),
  createdAt: z.iso.datetime().nullable(), // none for the operator, which is the deployment
  updatedAt: z.iso.datetime().nullable(),
  deletedAt: z.iso.datetime().nullable(),
});
export type Tenant = z.infer<typeof tenant>;

// The answer of POST /tenants: the tenant and its secrets, shown this once.
export const createdTenant = tenant.extend({ adminApiSecret: z.string(), webhookSecret: z.string(), idpSecret: z.string() });
export type CreatedTenant = z.infer<typeof createdTenant>;

export interface TenantRecord {
  id: string;
  name: string;
  walletAddressPrefix: string;
  ilpAddressSuffix: string;
  webhookUrl?: string;
  webhookDialect?: WebhookDialect;
  ratesUrl?: string;
  idpConsentUrl?: string;
  state: (typeof TENANT_STATES)[number];
  createdAt: string;
  updatedAt: string;
  deletedAt?: string;
  // Bumped by every change, which is conditional on it.
  version: number;
}

export const tenantParams = z.object({ id: tenantId });
