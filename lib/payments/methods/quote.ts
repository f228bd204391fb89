import { randomUUID } from 'node:crypto';
import { invalidFields } from '../../errors';
import type { Node } from '../../node';
import { putQuote } from '../../quotes';
import type { MethodName } from '../../quotes/method';
import type { CreateQuote, QuoteRecord } from '../../quotes/schemas';
import { localIntentId } from '../../resources';
import { commit } from '../../tx';
import { findWalletRecordByUrl } from '../../wallet-addresses';
import { walletAddressErrors } from '../../wallet-addresses/errors';
import { ilpQuoting } from './ilp-quote';
import { localQuoting } from './local-quote';
import type { Quoting, Sender } from './method';

// Creating a quote: priced by the payment method that reaches its receiver, whose name it stores.
// The payment methods' quoting halves; their sending halves are in ./index.ts.
const quoting: Record<MethodName, Quoting> = { local: localQuoting, ilp: ilpQuoting };

// The method that reaches a receiver: local for a payment intent of this node (its id or URL),
// Interledger for an incoming payment on another node.
const methodFor = (node: Node, receiver: string): MethodName => (localIntentId(node, receiver) === undefined ? 'ilp' : 'local');

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
  const method = quoting[methodFor(node, input.receiver)]; // local for this node's intents, ilp for another node's
  const sender = findSender(node, input.walletAddress);
  sender.catch(() => undefined); // awaited by the method, or not needed once it has failed
  const { expiresBy, ...priced } = await method.quote(node, input, sender);
  const from = await sender;
  const now = Date.now();
  const lifetime = now + node.quoteLifetimeSecs * 1000;
  return {
    id: randomUUID(),
    walletAddress: from.address,
    ...priced,
    expiresAt: new Date(expiresBy ? Math.min(lifetime, Date.parse(expiresBy)) : lifetime).toISOString(),
    createdAt: new Date(now).toISOString(),
    walletAddressId: from.id,
    sourceAssetId: from.assetId,
    ...(client && { client }),
  };
}

async function findSender(node: Node, walletAddress: string): Promise<Sender> {
  const sender = await findWalletRecordByUrl(node, walletAddress);
  if (!sender) throw walletAddressErrors.unknown(walletAddress);
  return sender;
}
