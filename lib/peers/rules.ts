import type { PeerRecord } from './schemas';

// The next hop for an ILP address: the peer with the longest prefix of it (on segment boundaries)
// among its static address and its `routes`, preferring, among equally long ones, the peer in
// `assetCode`; the oldest peer breaks a remaining tie, so that a route does not flap.
export function bestRoute<P extends Pick<PeerRecord, 'staticIlpAddress' | 'routes' | 'assetCode' | 'createdAt'>>(
  peers: P[],
  destination: string,
  assetCode?: string,
): P | undefined {
  const covers = (prefix: string) => destination === prefix || destination.startsWith(`${prefix}.`);
  const longest = (p: P) => Math.max(-1, ...[p.staticIlpAddress, ...p.routes].filter(covers).map((r) => r.length));
  const rank = (p: P) => [longest(p), p.assetCode === assetCode ? 1 : 0, -Date.parse(p.createdAt)];
  return peers
    .map((p) => ({ p, r: rank(p) }))
    .filter(({ r }) => r[0] >= 0)
    .sort(({ r: x }, { r: y }) => y[0] - x[0] || y[1] - x[1] || y[2] - x[2])[0]?.p;
}

// A peer's incoming tokens each name one peer (the store claims each as a unique key): an update
// claims the tokens it adds and releases the ones it drops, and leaves the rest alone.
export function tokenChanges(was: string[], now: string[]): { added: string[]; dropped: string[] } {
  return { added: now.filter((h) => !was.includes(h)), dropped: was.filter((h) => !now.includes(h)) };
}
