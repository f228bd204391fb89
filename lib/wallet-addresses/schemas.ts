import * as z from 'zod';
import { assetCode, pageQuery, printable } from '../shared/values';
import { MAX_ADDRESS_SEGMENTS } from '../shared/wallet-address-url';

// The longest wallet address URL (it is also a DynamoDB key and a resource server path).
export const MAX_ADDRESS_LENGTH = 512;

const publicName = printable(z.string().trim().min(1).max(200));

// Whether new payment intents on the wallet address wait for the FSP's approval; absent: the
// node's INCOMING_APPROVAL_REQUIRED.
const approvalRequired = z.boolean();

// An inactive wallet address (frozen by the FSP) takes no new payment intents, quotes, payments,
// grants or packets; what is in flight finishes as it would (docs/api.md).
export const walletAddressStatus = z.enum(['active', 'inactive']);
export type WalletAddressStatus = z.infer<typeof walletAddressStatus>;

export const createWalletAddressBody = z.strictObject({
  address: z
    .string()
    .max(MAX_ADDRESS_LENGTH)
    .describe(
      `An http(s) URL under WALLET_ADDRESS_URL, with at most ${MAX_ADDRESS_SEGMENTS} path segments (WALLET_ADDRESS_URL's included); ` +
        'each segment letters, digits, ".", "_", "~" and "-", starting with a letter or digit',
    ),
  assetCode,
  publicName: publicName.optional(),
  approvalRequired: approvalRequired.optional(),
  status: walletAddressStatus.optional(),
});
export type CreateWalletAddress = z.infer<typeof createWalletAddressBody>;

export const updateWalletAddressBody = z
  .strictObject({ publicName: publicName.optional(), approvalRequired: approvalRequired.optional(), status: walletAddressStatus.optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'must change publicName, approvalRequired or status');
export type UpdateWalletAddress = z.infer<typeof updateWalletAddressBody>;

// A wallet address URL as a client writes it; its form is checked where it is looked up.
export const walletAddressUrl = z.string().max(MAX_ADDRESS_LENGTH);

// GET /wallet-addresses: with `address`, the one wallet address at that URL; without, a page of
// all of them. `limit` and `cursor` page the list, so a look-up by address takes neither.
const PAGING = ['limit', 'cursor'];
export const walletAddressesQuery = z.preprocess(
  (query, ctx) => {
    const given = query as Record<string, unknown>;
    for (const name of given?.address === undefined ? [] : PAGING.filter((p) => given[p] !== undefined)) {
      ctx.addIssue({ code: 'custom', path: [name], input: given[name], message: 'pages the list of wallet addresses: a look-up by address takes none' });
    }
    return query;
  },
  pageQuery.extend({ address: walletAddressUrl.optional() }),
);

export const walletAddress = z.object({
  id: z.uuid(),
  address: z.url(),
  assetCode,
  assetScale: z.int(),
  publicName: z.string().nullable(),
  // In effect: the wallet address's own, or else the node's default.
  approvalRequired,
  status: walletAddressStatus,
  createdAt: z.iso.datetime(),
});
export type WalletAddress = z.infer<typeof walletAddress>;
// wallet_address.updated's data is the wallet address (walletAddress); wallet_address.not_found's
// the URL a client looked up, as Rafiki names it.
export const walletAddressNotFound = z.object({ walletAddressUrl: z.url() });
export type WalletAddressNotFound = z.infer<typeof walletAddressNotFound>;

// An Ed25519 public key as a JWK (RFC 8037). A private key (`d`) is refused as an unknown field.
export const ed25519Jwk = z.strictObject({
  kid: printable(z.string().min(1).max(255)),
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be the base64url encoding of a 32-byte public key'),
  alg: z.literal('EdDSA'),
  use: z.literal('sig').optional(),
});
export type Ed25519Jwk = z.infer<typeof ed25519Jwk>;

export const walletAddressKey = z.object({
  walletAddressId: z.uuid(),
  kid: z.string(),
  jwk: ed25519Jwk,
  createdAt: z.iso.datetime(),
  revokedAt: z.iso.datetime().nullable(),
});
export type WalletAddressKey = z.infer<typeof walletAddressKey>;

export const keyParams = z.object({ id: z.uuid(), kid: z.string().min(1).max(255) });

// At most this many unrevoked keys per wallet address: this bounds the public jwks.json.
export const MAX_ACTIVE_KEYS = 20;
