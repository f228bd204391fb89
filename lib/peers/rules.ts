import type { PeerRecord } from './schemas';

// The next hop for an ILP address: the peer whose static address is the longest prefix of it (on
// segment boundaries), preferring, among equally long ones, the peer in `assetCode`; the oldest
// peer breaks a remaining tie, so that a route does not flap.
export function bestRoute<P extends Pick<PeerRecord, 'staticIlpAddress' | 'assetCode' | 'createdAt'>>(
  peers: P[],
  destination: string,
  assetCode?: string,
): P | undefined {
  const covers = (p: P) => destination === p.staticIlpAddress || destination.startsWith(`${p.staticIlpAddress}.`);
  const rank = (p: P) => [p.staticIlpAddress.length, p.assetCode === assetCode ? 1 : 0, -Date.parse(p.createdAt)];
  return peers.filter(covers).sort((a, b) => {
    const [x, y] = [rank(a), rank(b)];
    return y[0] - x[0] || y[1] - x[1] || y[2] - x[2];
  })[0];
}

// A peer's incoming tokens each name one peer (the store claims each as a unique key): an update
// claims the tokens it adds and releases the ones it drops, and leaves the rest alone.
export function tokenChanges(was: string[], now: string[]): { added: string[]; dropped: string[] } {
  return { added: now.filter((h) => !was.includes(h)), dropped: was.filter((h) => !now.includes(h)) };
}
