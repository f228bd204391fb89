// Finding anything by its id or URL (GET /search): the console's one search box. Ids here are
// UUIDs of no telling type, so an id is looked up as each kind at once, by its own store's key, in
// one BatchGetItem (audit events live in the write-once store, found by time on the Audit list); a URL
// names a wallet address, or one of this node's incoming payments, outgoing payments or quotes.
// Every key is the node's: a tenant finds its own objects only.
import { assetLookup } from '../assets';
import { grantLookup } from '../auth-server';
import { withdrawalLookup } from '../liquidity-withdrawals';
import { intentLookup } from '../payment-intents';
import { paymentLookup } from '../payments';
import { peerLookup } from '../peers';
import { getEach, type Lookup } from '../platform/store';
import { quoteLookup } from '../quotes';
import type { Node } from '../shared/node';
import { idIn, intentUrl, outgoingPaymentUrl, quoteUrl } from '../shared/resources';
import { walletByUrlLookup, walletLookup } from '../wallet-addresses';
import { webhookEventLookup } from '../webhooks';
import { searchTypes as SEARCH_TYPES, type SearchQuery, type SearchResult, type SearchType } from './schemas';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

// Each kind an id may be, by its store's key.
const byId: Record<SearchType, (node: Node, id: string) => Lookup<unknown> | undefined> = {
  payment: paymentLookup,
  'payment-intent': intentLookup,
  quote: quoteLookup,
  'wallet-address': walletLookup,
  peer: peerLookup,
  'liquidity-withdrawal': withdrawalLookup,
  grant: grantLookup,
  'webhook-event': webhookEventLookup,
  asset: assetLookup,
};

// The kinds a URL of this node's resource server names by its path, with the id in it.
const resourceUrls = (node: Node): Array<[string, SearchType]> => [
  [intentUrl(node, ''), 'payment-intent'],
  [outgoingPaymentUrl(node, ''), 'payment'],
  [quoteUrl(node, ''), 'quote'],
];

export async function search(node: Node, { q }: SearchQuery): Promise<SearchResult> {
  const id = UUID.exec(q)?.[0].toLowerCase();
  const named = resourceUrls(node).flatMap(([prefix, type]) => {
    const inUrl = idIn(prefix, q);
    return inUrl ? [{ type, id: inUrl }] : [];
  });
  // What to look up, each by its store's key: a URL of this node's resource server names its kind;
  // any other text, a wallet address's URL (which may hold an id too, as a path segment: both are
  // looked up) and every kind its id may be.
  const asked = named.length
    ? named
    : [...(URL.canParse(q) ? [{ type: 'wallet-address' as const }] : []), ...(id ? SEARCH_TYPES.map((type) => ({ type, id })) : [])];
  const lookups = asked.flatMap((a) => {
    const lookup = 'id' in a ? byId[a.type](node, a.id) : walletByUrlLookup(node, q);
    return lookup ? [{ type: a.type, lookup }] : [];
  });
  const found = lookups.length ? await getEach(lookups.map((l) => l.lookup)) : [];
  return { items: lookups.flatMap(({ type }, i) => (found[i] === undefined ? [] : [{ type, id: (found[i] as { id: string }).id }])) };
}
