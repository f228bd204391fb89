import * as z from 'zod';
import { parseRepeatingInterval } from '../open-payments/interval';
import { amount } from '../shared/amounts';
import { ed25519Jwk } from '../wallet-addresses/schemas';

// GNAP grant requests as Open Payments profiles them (the authorization server's OpenAPI document
// in @interledger/open-payments). Unknown members are ignored, as GNAP is meant to be extended.
const url = z.url({ protocol: /^https?$/ }).max(2048);
const actions = <T extends readonly [string, ...string[]]>(values: T) =>
  z
    .array(z.enum(values))
    .min(1)
    .refine((a) => new Set(a).size === a.length, 'must not repeat an action');

const incomingPaymentAccess = z.object({
  type: z.literal('incoming-payment'),
  actions: actions(['create', 'complete', 'read', 'read-all', 'list', 'list-all'] as const),
  identifier: url.optional(),
});
const quoteAccess = z.object({
  type: z.literal('quote'),
  actions: actions(['create', 'read', 'read-all'] as const),
  identifier: url.optional(),
});
const outgoingPaymentAccess = z.object({
  type: z.literal('outgoing-payment'),
  actions: actions(['create', 'read', 'read-all', 'list', 'list-all'] as const),
  identifier: url,
  limits: z
    .object({
      receiver: url.optional(),
      interval: z
        .string()
        .max(200)
        .refine((s) => parseRepeatingInterval(s) !== undefined, 'must be an ISO 8601 repeating interval, as R/2026-01-01T00:00:00Z/P1M')
        .optional(),
      debitAmount: amount.optional(),
      receiveAmount: amount.optional(),
    })
    .refine((l) => !(l.debitAmount && l.receiveAmount), 'give debitAmount or receiveAmount, not both')
    .optional(),
});
export const accessItem = z.discriminatedUnion('type', [incomingPaymentAccess, quoteAccess, outgoingPaymentAccess]);
export type AccessItem = z.infer<typeof accessItem>;

// Where the user's browser is sent back: never with user info (https://user:pw@host/), which a
// browser would send as credentials to the host, or show to the user as a host of its own.
const finishUri = url.refine((u) => {
  const parsed = new URL(u);
  return !parsed.username && !parsed.password;
}, 'must not hold user info (user:password@)');

// The client: its wallet address (whose jwks.json holds its keys), or a key given directly.
const client = z.union([url, z.object({ walletAddress: url }), z.object({ jwk: ed25519Jwk })]);

export const grantRequest = z.object({
  access_token: z.object({ access: z.array(accessItem).min(1).max(3) }).optional(),
  client,
  interact: z
    .object({
      start: z.array(z.literal('redirect')).min(1),
      // Open Payments hashes with SHA-256 only (GNAP's default).
      finish: z
        .object({ method: z.literal('redirect'), uri: finishUri, nonce: z.string().min(1).max(200), hash_method: z.literal('sha-256').optional() })
        .optional(),
    })
    .optional(),
  subject: z.unknown().optional(),
});
export type GrantRequest = z.infer<typeof grantRequest>;

// A continuation (GNAP section 5.1): the interact_ref the finish URI received, or nothing (a poll).
export const continueRequest = z.object({ interact_ref: z.string().min(1).max(200).optional() }).optional();
export type ContinueRequest = z.infer<typeof continueRequest>;

// Who a grant was issued to: a wallet address, or a key (directed identity).
export type ClientIdentity = { walletAddress: string } | { jwk: z.infer<typeof ed25519Jwk> };

// What the resource server asks, and what it is told (Rafiki's token introspection).
export const introspectionRequest = z.object({
  access_token: z.string().min(1).max(512),
  access: z
    .array(
      z.object({ type: z.enum(['incoming-payment', 'quote', 'outgoing-payment']), actions: z.array(z.string()).min(1), identifier: z.string().optional() }),
    )
    .optional(),
});
export type IntrospectionRequest = z.infer<typeof introspectionRequest>;
export type Introspection = { active: false } | { active: true; grant: string; access: AccessItem[]; client: ClientIdentity };
