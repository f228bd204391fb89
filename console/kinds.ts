// The page of each kind of object (GET /search's types, an audit event's resource types): #/<page>/<id>.
export const PAGE_OF: Record<string, string> = {
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
