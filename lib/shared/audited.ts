// The records the audit trail follows, by the kind their key names ("<KIND>#<id>", sort key <KIND>),
// as the API names them. Only these carry the author of a change (lib/platform/tx), so that no
// other item (a listing, a lookup, an account) grows by it, nor costs another write unit.
export const AUDITED_KINDS: Readonly<Record<string, string>> = {
  ASSET: 'asset',
  WA: 'wallet-address',
  INTENT: 'payment-intent',
  QUOTE: 'quote',
  PAYMENT: 'payment',
  PEER: 'peer',
  TENANT: 'tenant',
  WITHDRAWAL: 'liquidity-withdrawal',
  XFER: 'transfer',
};
