import type { CreatePeer } from '../../lib/peers/schemas';

// A new peer's body, the n-th of a test file: an address, tokens and an endpoint of its own, in USD
// with at most 1000 a packet; `over` replaces fields (a bad one, for validation's tests).
export const peerBody = (n: number, over: Record<string, unknown> = {}): CreatePeer =>
  ({
    name: `Peer ${n}`,
    staticIlpAddress: `test.peer-${n}`,
    assetCode: 'USD',
    http: {
      incoming: { authTokens: [`incoming-token-number-${n}`] },
      outgoing: { authToken: `outgoing-token-number-${n}`, endpoint: `http://peer-${n}.example/ilp` },
    },
    maxPacketAmount: '1000',
    ...over,
  }) as CreatePeer;
