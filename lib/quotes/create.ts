import { randomUUID } from 'node:crypto';
import { amountOf, debitFor, receiveFor, toLedger } from '../amounts';
import { invalidFields } from '../errors';
import { ilpErrors } from '../ilp/errors';
import { probe, routeFor } from '../ilp/quote';
import type { Node } from '../node';
import { readReceiver } from '../open-payments/client';
import { checkAmountAsset, findIntent, intentView } from '../payment-intents';
import type { IntentRecord } from '../payment-intents/schemas';
import { resolveRate } from '../rates';
import { intentUrl, localIntentId } from '../resources';
import { commit } from '../tx';
import { findWalletRecordByUrl, type WalletRecord } from '../wallet-addresses';
import { walletAddressErrors } from '../wallet-addresses/errors';
import { quoteErrors } from './errors';
import type { CreateQuote, QuoteRecord } from './schemas';
import { putQuote } from './store';

// Pricing a quote to an incoming payment: a payment intent of this node, at the FSP-wide rate from
// the rates resolver; or one on another node, paid over Interledger through a peer, whose route
// lib/ilp/quote.ts probes. Rounding favours the service: the receive amount is rounded down, a
// debit computed from a receive amount rounded up.
type Sender = WalletRecord;
interface Receiver {
  asset: { code: string; scale: number };
  remaining: bigint | null; // what it can still take, if it asks for an amount
}
type Priced = Pick<QuoteRecord, 'receiver' | 'debitAmount' | 'receiveAmount' | 'estimatedExchangeRate' | 'intentId' | 'destinationAssetId' | 'ilp'> & {
  expiresBy?: string;
};

// `client`: the Open Payments client asking (lib/resource-server), kept on the quote.
export async function createQuote(node: Node, input: CreateQuote, client?: string): Promise<QuoteRecord> {
  const record = await priceQuote(node, input, client);
  await commit(node, [putQuote(node, record)]);
  return record;
}

// The quote, priced but not stored (a payment that prices its own stores it with itself).
export async function priceQuote(node: Node, input: CreateQuote, client?: string): Promise<QuoteRecord> {
  if (input.debitAmount && input.receiveAmount) {
    throw invalidFields([{ field: 'receiveAmount', message: 'cannot be given together with debitAmount' }]);
  }
  const intentId = localIntentId(node, input.receiver);
  // A local receiver is read together with the sender: one round trip, not two.
  const [sender, intent] = await Promise.all([
    findWalletRecordByUrl(node, input.walletAddress),
    intentId === undefined ? undefined : findIntent(node, intentId),
  ]);
  if (!sender) throw walletAddressErrors.unknown(input.walletAddress);
  const { expiresBy, ...priced } = intentId === undefined ? await priceRemote(node, input, sender) : await priceLocal(node, input, sender, intentId, intent);

  const now = Date.now();
  const lifetime = now + node.quoteLifetimeSecs * 1000;
  const record: QuoteRecord = {
    id: randomUUID(),
    walletAddress: sender.address,
    ...priced,
    expiresAt: new Date(expiresBy ? Math.min(lifetime, Date.parse(expiresBy)) : lifetime).toISOString(),
    createdAt: new Date(now).toISOString(),
    walletAddressId: sender.id,
    sourceAssetId: sender.assetId,
    ...(client && { client }),
  };
  return record;
}

// The amount the sender names, in the right asset; or, with none, the receiver's remaining amount.
function target(input: CreateQuote, src: { code: string; scale: number }, receiver: Receiver): { debit?: bigint; receive?: bigint } {
  if (input.debitAmount) {
    checkAmountAsset(input.debitAmount, src, 'debitAmount');
    return { debit: BigInt(input.debitAmount.value) };
  }
  if (input.receiveAmount) {
    checkAmountAsset(input.receiveAmount, receiver.asset, 'receiveAmount');
    return { receive: BigInt(input.receiveAmount.value) };
  }
  if (receiver.remaining === null) throw quoteErrors.amountRequired();
  return { receive: receiver.remaining };
}

function checkAmounts(debit: bigint, receive: bigint, src: { scale: number }, receiver: Receiver) {
  if (receive <= 0n || debit <= 0n) throw quoteErrors.amountTooSmall();
  if (receiver.remaining !== null && receive > receiver.remaining) {
    throw quoteErrors.amountExceedsRemaining(String(receiver.remaining), receiver.asset.scale);
  }
  toLedger(debit, src.scale, 'debitAmount.value');
  toLedger(receive, receiver.asset.scale, 'receiveAmount.value');
}

async function priceLocal(node: Node, input: CreateQuote, sender: Sender, intentId: string, intent: IntentRecord | undefined): Promise<Priced> {
  if (!intent) throw ilpErrors.receiverNotFound(`No payment intent ${intentId}`);
  const intentState = intentView(node, intent).state;
  if (intentState !== 'pending' && intentState !== 'processing') {
    throw ilpErrors.receiverNotOpen(`Payment intent ${intentId} is ${intentState}; it cannot receive payments`);
  }
  const rate = await resolveRate(node, { sourceAssetCode: sender.assetCode, destinationAssetCode: intent.assetCode });
  const src = { code: sender.assetCode, scale: sender.assetScale };
  const receiver: Receiver = {
    asset: { code: intent.assetCode, scale: intent.assetScale },
    remaining: intent.incomingValue === null ? null : BigInt(intent.incomingValue) - BigInt(intent.received),
  };
  const wanted = target(input, src, receiver);
  const debit = wanted.debit ?? debitFor(wanted.receive!, rate.rate, src.scale, receiver.asset.scale);
  const receive = wanted.receive ?? receiveFor(wanted.debit!, rate.rate, src.scale, receiver.asset.scale);
  checkAmounts(debit, receive, src, receiver);
  return {
    receiver: intentUrl(node, intent.id),
    debitAmount: amountOf(debit, src),
    receiveAmount: amountOf(receive, receiver.asset),
    estimatedExchangeRate: rate.rate,
    intentId: intent.id,
    destinationAssetId: intent.assetId,
    expiresBy: intent.expiresAt,
  };
}

async function priceRemote(node: Node, input: CreateQuote, sender: Sender): Promise<Priced> {
  const remote = await readReceiver(node, input.receiver);
  if (remote.state !== 'open') throw ilpErrors.receiverNotOpen(`The incoming payment at ${remote.url} is ${remote.state}; it cannot receive payments`);
  const src = { code: sender.assetCode, scale: sender.assetScale };
  const receiver: Receiver = { asset: remote.asset, remaining: remote.incoming === null ? null : remote.incoming - remote.received };
  const wanted = target(input, src, receiver);
  if (wanted.receive !== undefined) checkAmounts(1n, wanted.receive, src, receiver); // before the probe: it costs round trips
  const probed = await probe(node, src, remote, await routeFor(node, remote, src), wanted);
  checkAmounts(probed.debit, probed.receive, src, receiver);
  return {
    receiver: remote.url,
    debitAmount: amountOf(probed.debit, src),
    receiveAmount: amountOf(probed.receive, remote.asset),
    estimatedExchangeRate: probed.estimatedExchangeRate,
    ilp: probed.details,
    ...(remote.expiresAt && { expiresBy: remote.expiresAt }),
  };
}
