import { errorCatalog } from '../shared/errors';

export const peerErrors = errorCatalog({
  notFound: { code: 'peer_not_found', status: 404, title: 'No peer with this id', detail: (id: string) => `No peer with id ${id}` },
  // A peer named in a body (not the path).
  unknown: {
    code: 'unknown_peer',
    status: 422,
    title: 'No peer with this id',
    detail: (id: string) => `No peer ${id}: a peer-scoped rate names a peer by its id`,
  },
  exists: {
    code: 'peer_exists',
    status: 409,
    title: 'A peer has this static ILP address in this asset',
    detail: (address: string, assetCode: string) => `There is already a peer at ${address} in ${assetCode}: one peering relationship per address and asset`,
  },
  tokenInUse: {
    code: 'auth_token_in_use',
    status: 409,
    title: 'An incoming auth token is used by another peer',
    detail: () => 'An incoming auth token is already used by another peer; each token names one peer',
  },
  internalEndpoint: {
    code: 'peer_endpoint_internal',
    status: 422,
    title: "The peer's endpoint is at an internal address, where this tenant's peers may not be",
    detail: (endpoint: string, _field?: string) =>
      `${endpoint} is, or resolves to, a loopback, private, link-local or other internal address: this node sends a tenant's packets there only if the operator allows it (ALLOW_PRIVATE_PEERS)`,
    fields: (_endpoint: string, field = 'http.outgoing.endpoint') => [{ field, message: 'is, or resolves to, an internal address' }],
  },
  changed: {
    code: 'peer_changed',
    status: 409,
    title: 'Another request changed the peer meanwhile; read it again and retry',
    detail: (id: string) => `Peer ${id} was changed by another request meanwhile; read it again and retry`,
  },
  hasLiquidity: {
    code: 'peer_has_liquidity',
    status: 409,
    title: 'The peer holds liquidity; withdraw it first',
    detail: (id: string) => `Peer ${id} still holds liquidity; withdraw it with POST /peers/${id}/liquidity-withdrawals first`,
  },
  // Peering by URL (docs/interledger.md).
  autoPeeringOff: {
    code: 'auto_peering_disabled',
    status: 403,
    title: 'Peering by URL is off on this node (AUTO_PEERING_ENABLED)',
    detail: () => 'Peering by URL is off on this node: its operator turns it on with AUTO_PEERING_ENABLED=true',
  },
  peeringFailed: {
    code: 'peering_failed',
    status: 502,
    title: 'The other node did not accept the peering request',
    detail: (url: string, why: string) => `The peering request to ${url} failed: ${why}. Nothing was changed here; the request may be sent again`,
  },
  peeringAnswerInvalid: {
    code: 'peering_answer_invalid',
    status: 502,
    title: "The other node's answer to the peering request is not one",
    detail: (url: string, why: string) =>
      `${url} answered the peering request with no {staticIlpAddress, ilpConnectorUrl, httpToken}: ${why}. Nothing was changed here; the request may be sent again`,
  },
});
