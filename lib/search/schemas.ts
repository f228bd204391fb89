import * as z from 'zod';

// GET /search: what an id or URL names, of this tenant's objects.
export const searchTypes = ['payment', 'payment-intent', 'quote', 'wallet-address', 'peer', 'liquidity-withdrawal', 'grant', 'webhook-event', 'asset'] as const;
export type SearchType = (typeof searchTypes)[number];

export const searchQuery = z.strictObject({
  q: z
    .string()
    .trim()
    .min(1, 'must name an id or a URL')
    .max(2048, 'must be at most 2048 characters')
    .describe(
      'An id (a payment, payment intent, quote, wallet address, peer, liquidity withdrawal, grant, webhook event or asset), ' +
        'a ledger account (`payment:<id>`), or a URL: a wallet address, or an incoming payment, outgoing payment or quote of this node',
    ),
});
export type SearchQuery = z.infer<typeof searchQuery>;

export const searchMatch = z.object({ type: z.enum(searchTypes), id: z.string() });
export const searchResult = z.object({
  items: z.array(searchMatch).describe('What the id or URL names here: none (nothing has it), or one (rarely more)'),
});
export type SearchResult = z.infer<typeof searchResult>;
