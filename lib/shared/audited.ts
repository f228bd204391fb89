// The records the audit trail follows, by the kind their key names ("<KIND>#<id>", sort key <KIND>),
// as the API names them. Only these carry the author of a change (lib/platform/tx), so that no
// other item (a listing, a lookup, an account) grows by it, nor costs another write unit.
const KINDS = {
  ASSET: 'asset',
  WA: 'wallet-address',
  INTENT: 'payment-intent',
  QUOTE: 'quote',
  PAYMENT: 'payment',
  PEER: 'peer',
  TENANT: 'tenant',
  WITHDRAWAL: 'liquidity-withdrawal',
  XFER: 'transfer',
} as const;
export type AuditedKind = keyof typeof KINDS;
export const AUDITED_KINDS: Readonly<Record<string, string>> = KINDS;
// An item in an audited record's place that holds no record, but a used signature's replay guard
// (lib/api/http/store.ts): the reads of records (lib/platform/store) and the audit trail pass over it.
export const GUARD_ONLY = 'guardOnly';
// On a record whose id is named by what it is for, not drawn (a payment's, by its quote): the id its
// signed request drew, by which its put holds that request's replay guard all the same (lib/platform/tx)
// and a replay of it is told from another request for the same name.
export const GUARD_ID = 'guardId';
// Records the audit trail follows that sit in another's partition, by their sort key's prefix
// ("<PREFIX>#…") and that partition's kind: a wallet address's keys ("KEY#<kid>", in its URL's
// partition), named by their wallet address's id and kid, as the API's path names them.
export const AUDITED_PARTS: Readonly<Record<string, { partition: string; kind: string; id: (fields: Record<string, unknown>) => string }>> = {
  KEY: { partition: 'WAURL', kind: 'wallet-address-key', id: (f) => `${f.walletAddressId}/keys/${f.kid}` },
};
