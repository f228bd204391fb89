import {
  Int,
  isPaymentError,
  PaymentError,
  PaymentType,
  type Quote as PayQuote,
  type PositiveInt,
  type PositiveRatio,
  Ratio,
  type ResolvedPayment,
  setupPayment,
  startQuote,
} from '@interledger/pay';
import { routeTo } from '../peers';
import type { PeerRecord } from '../peers/schemas';
import { resolveRate } from '../rates';
import type { DomainError } from '../shared/errors';
import type { Node } from '../shared/node';
import { ilpErrors } from './errors';
import { type Failure, PeerPlugin } from './plugin';
import type { RemoteReceiver } from './receiver';

// Paying an incoming payment on another node: read it through Open Payments (a grant from its
// authorization server, then an authenticated read, which yields its STREAM credentials), pick the
// peer that routes to its ILP address, and probe the route with @interledger/pay to learn the rate
// it really pays at. Every conversion between the payment's asset and another uses the peer's rate.
export interface Asset {
  code: string;
  scale: number;
}

// What a quote keeps to send later without probing again (pay's rates as exact fractions).
export interface IlpQuoteDetails {
  peerId: string;
  lowRate: [string, string];
  highRate: [string, string];
  minRate: [string, string];
  maxPacketAmount: string;
  spsp?: true; // the receiver is a payment pointer (./spsp.ts): each attempt asks it for a connection
}

// The peer towards the receiver (preferring one in the payment's asset), and the rate into its asset.
export async function routeFor(node: Node, receiver: Pick<RemoteReceiver, 'ilpAddress'>, source: Asset): Promise<{ peer: PeerRecord; rate: number }> {
  const peer = await routeTo(node, receiver.ilpAddress, source.code);
  if (!peer) throw ilpErrors.noRoute(receiver.ilpAddress);
  const { rate } = await resolveRate(node, { sourceAssetCode: source.code, destinationAssetCode: peer.assetCode, peerId: peer.id });
  return { peer, rate };
}

// The STREAM connection to the receiver, with no round trip (its asset is known from Open Payments).
export function connect(plugin: PeerPlugin, receiver: RemoteReceiver): Promise<ResolvedPayment> {
  return setupPayment({ plugin, destinationAddress: receiver.ilpAddress, sharedSecret: receiver.sharedSecret, destinationAsset: receiver.asset });
}

// The receiver's asset, asked of it over STREAM (its asset details: one round trip), for a receiver
// that did not say (a payment pointer's).
export async function destinationAsset(
  node: Node,
  source: Asset,
  connection: Pick<RemoteReceiver, 'ilpAddress' | 'sharedSecret'>,
  route: { peer: PeerRecord; rate: number },
): Promise<Asset> {
  const plugin = new PeerPlugin({ node, peer: route.peer, source, rate: route.rate, sharedSecret: connection.sharedSecret });
  try {
    return (await setupPayment({ plugin, destinationAddress: connection.ilpAddress, sharedSecret: connection.sharedSecret })).destinationAsset;
  } catch (e) {
    if (isPaymentError(e)) throw probeFailed(node, e, plugin.failure, route.peer);
    throw e;
  }
}

interface ProbedQuote {
  estimatedExchangeRate: number; // receive per debit in whole units, as quotes show it
  details: IlpQuoteDetails; // among them the probed rate and the minimum, which price the quote (lib/quotes/pricing.ts)
}

// A rate probe for `debit` (fixed send) or `receive` (fixed delivery): the rate the route pays, and
// the minimum every packet must meet (the expected rate less SLIPPAGE).
export async function probe(
  node: Node,
  source: Asset,
  receiver: RemoteReceiver,
  route: { peer: PeerRecord; rate: number },
  target: { debit?: bigint; receive?: bigint },
): Promise<ProbedQuote> {
  const plugin = new PeerPlugin({ node, peer: route.peer, source, rate: route.rate, sharedSecret: receiver.sharedSecret });
  let quote: PayQuote;
  try {
    const prices = source.code === receiver.asset.code ? undefined : await pricesFor(node, source, receiver.asset, route);
    quote = await startQuote({
      plugin,
      destination: await connect(plugin, receiver),
      sourceAsset: source,
      ...(target.receive !== undefined ? { amountToDeliver: target.receive } : { amountToSend: target.debit! }),
      ...(prices && { prices }),
      slippage: node.slippage,
    });
  } catch (e) {
    if (isPaymentError(e)) throw probeFailed(node, e, plugin.failure, route.peer);
    throw e;
  }
  const low = quote.lowEstimatedExchangeRate;
  // (pay's own declarations of its ratio types do not check under TypeScript 5.9: read them structurally)
  const pair = (r: { a: { value: bigint }; b: { value: bigint } }): [string, string] => [r.a.value.toString(), r.b.value.toString()];
  return {
    estimatedExchangeRate: Number(low.valueOf()) * 10 ** (source.scale - receiver.asset.scale),
    details: {
      peerId: route.peer.id,
      lowRate: pair(low),
      highRate: pair(quote.highEstimatedExchangeRate),
      minRate: pair(quote.minExchangeRate),
      maxPacketAmount: quote.maxPacketAmount.toString(),
    },
  };
}

// pay's prices: what one whole unit of each asset is worth, in any common unit. When the peer's
// asset is the receiver's (the usual case), the route's rate is that rate already.
async function pricesFor(node: Node, source: Asset, destination: Asset, route: { peer: PeerRecord; rate: number }) {
  const { rate } =
    route.peer.assetCode === destination.code
      ? route
      : await resolveRate(node, { sourceAssetCode: source.code, destinationAssetCode: destination.code, peerId: route.peer.id });
  return { [source.code]: 1, [destination.code]: 1 / rate };
}

// pay's quote again, from what a quote kept, for `maxSource` and `minDelivery` still to go.
export function payQuote(details: IlpQuoteDetails, maxSource: bigint, minDelivery: bigint): PayQuote {
  const ratio = ([a, b]: [string, string]) => Ratio.of(Int.from(BigInt(a))!, Int.from(BigInt(b)) as unknown as PositiveInt);
  return {
    paymentType: PaymentType.FixedDelivery,
    maxSourceAmount: maxSource,
    minDeliveryAmount: minDelivery,
    maxPacketAmount: BigInt(details.maxPacketAmount),
    lowEstimatedExchangeRate: ratio(details.lowRate),
    highEstimatedExchangeRate: ratio(details.highRate) as unknown as PositiveRatio,
    minExchangeRate: ratio(details.minRate),
  };
}

function probeFailed(node: Node, error: PaymentError, failure: Failure | undefined, peer: PeerRecord): DomainError {
  if (failure?.kind === 'refused') return ilpErrors.peerRefused(failure.reason);
  if (failure) return ilpErrors.peerUnreachable(failure.reason);
  switch (error) {
    case PaymentError.InsufficientExchangeRate:
      return ilpErrors.insufficientExchangeRate(peer.id, node.slippage);
    case PaymentError.ClosedByReceiver:
      return ilpErrors.receiverNotOpen('The receiver closed the connection: it takes no more payments');
    default:
      return ilpErrors.rateProbeFailed(peer.id, error);
  }
}
