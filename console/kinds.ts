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
  'audit-event': 'audit',
  asset: 'assets',
  rate: 'rates',
};

// The time an audit event's id carries (a UUID v7's first 48 bits, lib/audit/ids.ts), in ms.
export const timeOfId = (id: string): number | undefined =>
  /^[0-9a-f]{8}-[0-9a-f]{4}-7/i.test(id) ? Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16) : undefined;
