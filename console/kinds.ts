// The page of each kind of object (GET /search's types, an audit event's resource types): #/<page>/<id>.
const PAGE_OF: Record<string, string> = {
  payment: 'payments',
  'payment-intent': 'payment-intents',
  quote: 'quotes',
  'wallet-address': 'wallet-addresses',
  peer: 'peers',
  'liquidity-withdrawal': 'liquidity-withdrawals',
  grant: 'grants',
  'webhook-event': 'webhook-events',
  asset: 'assets',
};

// The page a record is shown on, by its kind and id: a wallet address's key (id
// `<wallet address id>/keys/<kid>`, an audit event's resource) on its wallet address's.
export function recordPage(type: string, id: string | null): string | undefined {
  if (type === 'wallet-address-key' && id?.includes('/keys/')) return `#/${PAGE_OF['wallet-address']}/${id.slice(0, id.indexOf('/keys/'))}`;
  const page = PAGE_OF[type];
  if (!page) return undefined;
  return id ? `#/${page}/${id}` : `#/${page}`;
}
