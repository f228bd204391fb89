import { canonicalOrUndefined, isUnderBase, sameAddress } from '../shared/wallet-address-url';
import type { AccessItem } from './schemas';

// What a grant request is given: each access item is judged on its own, by one rule whatever else
// the request holds (an item beside an outgoing payment is judged as it would be alone):
// - issued at once: what acts only on what the client creates (create; read, list and complete of
//   its own: the resource server scopes them); `read` of one incoming payment named by its URL;
//   and `read-all` of incoming payments, which a payer's node asks for (Rafiki's always does) to
//   read one it was given to pay. The resource server shows a client another client's payment as a
//   payer needs it (amounts, state, expiry, wallet address, STREAM credentials), never its
//   `metadata`, and no `*-all` lets a client complete what it did not create. Holding a payment's
//   URL is the capability, as with `read` by URL: without `list-all` no payment can be found.
// - the wallet owner's consent (an interactive grant): `outgoing-payment` (it spends the user's
//   money), `list-all` of incoming payments and `read-all` of quotes (they reach everything of the
//   wallet address); each names the wallet address in its `identifier`, or is refused.
// - refused: anything else, and an item needing consent with no identifier.
// Any refused item refuses the whole request (naming the item); any item needing consent makes it
// interactive, and the user consents for one wallet address: every item that names a wallet
// address names that one (this node's). An item naming none is only one issued at once on its own,
// which consent widens in nothing; the consent page shows every item.
export type GrantDecision = { outcome: 'issue' } | { outcome: 'interact'; walletAddress: string } | { outcome: 'refuse'; detail: string };

type ItemRule = 'issue' | 'consent' | { refuse: string };

export interface PolicyUrls {
  payments: string; // this resource server's incoming payment URLs start with it
  walletAddresses: string; // WALLET_ADDRESS_URL: every wallet address of this node is under it
}

const ONE_PAYMENT = 'an incoming payment URL as the identifier grants read of that payment only: ask for actions ["read"]';
const NEEDS_IDENTIFIER = "it reaches every one of a wallet address, so it needs the wallet owner's consent, for the wallet address named as its identifier";

function itemRule(item: AccessItem, urls: PolicyUrls): ItemRule {
  const actions: string[] = item.actions;
  if (item.type === 'outgoing-payment') return 'consent'; // its identifier is required by the schema
  if (item.type === 'incoming-payment' && item.identifier && isUnderBase(item.identifier, urls.payments))
    return actions.length === 1 && actions[0] === 'read' ? 'issue' : { refuse: ONE_PAYMENT };
  const consented = item.type === 'incoming-payment' ? actions.includes('list-all') : actions.includes('read-all');
  if (!consented) return 'issue';
  return item.identifier ? 'consent' : { refuse: NEEDS_IDENTIFIER };
}

const named = (item: AccessItem, i: number) => `access_token.access[${i}] (${item.type} ${item.actions.join(', ')})`;

export function grantPolicy(access: AccessItem[], urls: PolicyUrls): GrantDecision {
  const rules = access.map((item) => itemRule(item, urls));
  const refused = rules.findIndex((r) => typeof r === 'object');
  if (refused >= 0) return { outcome: 'refuse', detail: `${named(access[refused], refused)}: ${(rules[refused] as { refuse: string }).refuse}` };
  const asking = rules.indexOf('consent');
  if (asking < 0) return { outcome: 'issue' };
  const walletAddress = access[asking].identifier!;
  if (!canonicalOrUndefined(walletAddress, urls.walletAddresses))
    return { outcome: 'refuse', detail: `${named(access[asking], asking)}: ${walletAddress} is not a wallet address of this node, whose owner could consent` };
  const other = access.findIndex((item) => item.identifier !== undefined && !sameAddress(item.identifier, walletAddress));
  if (other >= 0)
    return {
      outcome: 'refuse',
      detail: `${named(access[other], other)}: an interactive grant is consented by the owner of one wallet address, ${walletAddress}; every item that names one must name it (ask for others in grants of their own)`,
    };
  return { outcome: 'interact', walletAddress };
}
