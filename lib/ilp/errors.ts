import { errorCatalog } from '../shared/errors';

// Interledger's errors: a payment's receiver (a payment intent here, or an incoming payment on
// another node, read over Open Payments), a quote's route and its probe, the connector's packets.
export const ilpErrors = errorCatalog({
  receiverNotFound: { code: 'receiver_not_found', status: 422, title: 'No incoming payment at the receiver', detail: (detail: string) => detail },
  receiverNotOpen: {
    code: 'receiver_not_open',
    status: 422,
    title: 'The receiver takes no more payments (completed or expired)',
    detail: (detail: string) => detail,
  },
  receiverUnreachable: {
    code: 'receiver_unreachable',
    status: 502,
    title: "The receiver's node could not be read",
    detail: (detail: string) => detail,
  },
  receiverInvalid: {
    code: 'receiver_invalid',
    status: 502,
    title: "The receiver's node answered something that is not an incoming payment",
    detail: (detail: string) => detail,
  },
  noRoute: {
    code: 'no_route',
    status: 422,
    title: "No peer's static ILP address is a prefix of the receiver's",
    detail: (address: string) => `No peer routes to ${address}: no peer's staticIlpAddress is a prefix of it`,
  },
  insufficientExchangeRate: {
    code: 'insufficient_exchange_rate',
    status: 422,
    title: 'The route pays less than the expected rate less slippage',
    detail: (peerId: string, slippage: number) => `The route through peer ${peerId} pays less than the expected rate less slippage (${slippage})`,
  },
  peerRefused: { code: 'peer_refused', status: 502, title: 'The peer refused the rate probe', detail: (reason: string) => reason },
  peerUnreachable: { code: 'peer_unreachable', status: 502, title: 'The peer could not be reached', detail: (reason: string) => reason },
  rateProbeFailed: {
    code: 'rate_probe_failed',
    status: 502,
    title: 'The rate probe failed',
    detail: (peerId: string, error: string) => `The rate probe through peer ${peerId} failed: ${error}`,
  },
  invalidPacket: { code: 'invalid_packet', status: 400, title: 'The body is not one ILP Prepare', detail: (detail: string) => detail },
});
