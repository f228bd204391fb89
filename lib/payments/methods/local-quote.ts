import { ilpErrors } from '../../ilp/errors';
import { findIntent, intentView } from '../../payment-intents';
import { localAmounts } from '../../quotes/pricing';
import type { CreateQuote } from '../../quotes/schemas';
import { resolveRate } from '../../rates';
import { amountOf } from '../../shared/amounts';
import type { Node } from '../../shared/node';
import { intentUrl, localIntentId } from '../../shared/resources';
import { checkAmounts, type Priced, type Quoting, type Receiver, type Sender, sourceOf, target } from './method';

// The local payment method's quoting (its sending: ./local.ts): to a payment intent of this node, at the FSP-wide
// rate from the rates resolver (either QUOTE_PRICING: lib/quotes/pricing.ts localAmounts). The intent is read together with the sender.
async function quoteLocal(node: Node, input: CreateQuote, sender: Promise<Sender>): Promise<Priced> {
  const intentId = localIntentId(node, input.receiver)!;
  const [from, intent] = await Promise.all([sender, findIntent(node, intentId)]);
  if (!intent) throw ilpErrors.receiverNotFound(`No payment intent ${intentId}`);
  // One held for approval is quoted: a payment to it fails until the FSP approves it.
  const intentState = intentView(node, intent).state;
  if (intentState !== 'pending_approval' && intentState !== 'pending' && intentState !== 'processing') {
    throw ilpErrors.receiverNotOpen(`Payment intent ${intentId} is ${intentState}; it cannot receive payments`);
  }
  const rate = await resolveRate(node, { sourceAssetCode: from.assetCode, destinationAssetCode: intent.assetCode });
  const src = sourceOf(from);
  const receiver: Receiver = {
    asset: { code: intent.assetCode, scale: intent.assetScale },
    remaining: intent.incomingValue === null ? null : BigInt(intent.incomingValue) - BigInt(intent.received),
  };
  const wanted = target(input, src, receiver);
  const { debit, receive } = localAmounts(wanted, rate.rate, { from: src.scale, to: receiver.asset.scale });
  checkAmounts(debit, receive, src, receiver);
  return {
    receiver: intentUrl(node, intent.id),
    debitAmount: amountOf(debit, src),
    receiveAmount: amountOf(receive, receiver.asset),
    estimatedExchangeRate: rate.rate,
    method: 'local',
    local: { intentId: intent.id, destinationAssetId: intent.assetId, walletAddress: intent.walletAddress },
    expiresBy: intent.expiresAt,
  };
}

export const localQuoting: Quoting = { quote: quoteLocal };
