import { feeOn, feesOf } from '../../assets';
import { newId } from '../../platform/ids';
import { readTogether } from '../../platform/store';
import { commit } from '../../platform/tx';
import { recordQuote } from '../../quotes';
import { quoteErrors } from '../../quotes/errors';
import type { MethodName } from '../../quotes/method';
import { sendableWithin } from '../../quotes/pricing';
import type { CreateQuote, QuoteRecord } from '../../quotes/schemas';
import { toLedger } from '../../shared/amounts';
import { invalidFields } from '../../shared/errors';
import type { Node } from '../../shared/node';
import { localIntentId } from '../../shared/resources';
import { activeWalletRecord, standingNow } from '../../wallet-addresses';
import { ilpQuoting } from './ilp-quote';
import { localQuoting } from './local-quote';
import type { Quoting, Sender } from './method';

// Creating a quote: priced by the payment method that reaches its receiver, whose name it stores.
// The payment methods' quoting halves; their sending halves are in ./index.ts.
const quoting: Record<MethodName, Quoting> = { local: localQuoting, ilp: ilpQuoting };

// The method that reaches a receiver: local for a payment intent of this node (its id or URL),
// Interledger for an incoming payment on another node.
const methodFor = (node: Node, receiver: string): MethodName => (localIntentId(node, receiver) === undefined ? 'ilp' : 'local');

// `client`: the Open Payments client asking (lib/api/resource-server), kept on the quote.
export async function createQuote(node: Node, input: CreateQuote, client?: string): Promise<QuoteRecord> {
  const record = await priceQuote(node, input, client);
  await commit(node, [recordQuote(node, record)]);
  return record;
}

// The quote, priced but not stored (a payment that prices its own stores it with itself).
// The sending fee (the sender asset's, as it is now) is added to the debit amount the method
// priced; given a debitAmount, the method prices what is left of it beside its fee (how much that
// is depends on QUOTE_PRICING: lib/quotes/pricing.ts).
// Its reads that do not wait on each other (a local receiver's intent, the sender's fees) go together.
export const priceQuote = (node: Node, input: CreateQuote, client?: string) => readTogether(() => pricedQuote(node, input, client));

async function pricedQuote(node: Node, input: CreateQuote, client?: string): Promise<QuoteRecord> {
  if (input.debitAmount && input.receiveAmount) {
    throw invalidFields([{ field: 'receiveAmount', message: 'cannot be given together with debitAmount' }]);
  }
  const method = quoting[methodFor(node, input.receiver)]; // local for this node's intents, ilp for another node's
  // Refused unknown or inactive as cached, then as it stands now, read beside its fees.
  const cached = activeWalletRecord(node, input.walletAddress);
  const sender: Promise<Sender> = cached.then((w) => standingNow(node, w));
  sender.catch(() => undefined); // awaited by the method, or not needed once it has failed
  const fees = cached.then((s) => feesOf(node, s.assetId));
  fees.catch(() => undefined); // read while the method prices, unless the debit amount waits for it
  let asked = input;
  if (input.debitAmount) {
    const sendable = sendableWithin(node.quotePricing, (await fees).sendingFee, BigInt(input.debitAmount.value));
    if (sendable <= 0n) throw quoteErrors.amountTooSmall();
    asked = { ...input, debitAmount: { ...input.debitAmount, value: sendable.toString() } };
  }
  const { expiresBy, debitAmount: sent, ...priced } = await method.quote(node, asked, sender);
  const [from, { sendingFee }] = await Promise.all([sender, fees]);
  const fee = input.debitAmount ? BigInt(input.debitAmount.value) - BigInt(asked.debitAmount!.value) : feeOn(sendingFee, BigInt(sent.value));
  const debit = BigInt(sent.value) + fee;
  toLedger(debit, sent.assetScale, 'debitAmount.value');
  const now = Date.now();
  const lifetime = now + node.quoteLifetimeSecs * 1000;
  return {
    id: newId(),
    walletAddress: from.address,
    ...priced,
    debitAmount: { ...sent, value: debit.toString() },
    fee: { ...sent, value: fee.toString() },
    ...(sendingFee && { sendingFee }),
    expiresAt: new Date(expiresBy ? Math.min(lifetime, Date.parse(expiresBy)) : lifetime).toISOString(),
    createdAt: new Date(now).toISOString(),
    walletAddressId: from.id,
    sourceAssetId: from.assetId,
    ...(client && { client }),
  };
}
