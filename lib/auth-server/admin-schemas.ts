import * as z from 'zod';
import { amount } from '../shared/amounts';
import { pageQuery } from '../shared/values';
import { ed25519Jwk, walletAddressUrl } from '../wallet-addresses/schemas';

// The grants as the FSP sees them on the Admin API (GET /grants): each one's client, what it gives
// access to, its state and the wallet address of this node it is for (null: it names none, as a
// grant to create incoming payments on any may not). Never a token or a hash of one. It is also the
// data of the grant.revoked event. Apart from ./schemas.ts, whose checks of a grant request carry a
// date library (an interval's), which the Admin API's route table need not: access items are shown
// as they were granted, checked then.
export const grantState = z.enum(['pending', 'consented', 'approved', 'rejected', 'revoked']);
const grantedAccess = z.object({
  type: z.enum(['incoming-payment', 'quote', 'outgoing-payment']),
  actions: z.array(z.string()),
  identifier: z.string().optional(),
  limits: z
    .object({ receiver: z.string().optional(), interval: z.string().optional(), debitAmount: amount.optional(), receiveAmount: amount.optional() })
    .optional(),
});
export const grant = z.object({
  id: z.uuid(),
  state: grantState,
  client: z.union([z.object({ walletAddress: z.string() }), z.object({ jwk: ed25519Jwk })]),
  walletAddress: z.string().nullable(),
  access: z.array(grantedAccess),
  createdAt: z.iso.datetime(),
});
export type Grant = z.infer<typeof grant>;

// GET /grants: `walletAddress` by its id or its URL, `client` by its wallet address.
export const grantsQuery = pageQuery.extend({
  walletAddress: walletAddressUrl.optional(),
  client: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  state: grantState.optional(),
});
export type GrantsQuery = z.infer<typeof grantsQuery>;
