import { checkAmountAsset } from '../../payment-intents';
import { quoteErrors } from '../../quotes/errors';
import type { MethodFields } from '../../quotes/method';
import type { CreateQuote, QuoteRecord } from '../../quotes/schemas';
import { toLedger } from '../../shared/amounts';
import type { Node } from '../../shared/node';
import type { WalletRecord } from '../../wallet-addresses';
import type { PaymentMessage, PaymentRecord } from '../schemas';

// A payment method: how a quote is priced and its funded payment reaches the receiver. Two exist:
// local, to a payment intent of this node (./local.ts), and Interledger, to an incoming payment on
// another node through a peer (./ilp.ts). The method is chosen by the receiver when quoting, stored
// on the quote with its fields (lib/quotes/method.ts) and carried to the payment; a registry
// picks the implementation by it. Each method comes in two halves, in two registries: its quoting
// (./local-quote.ts, ./ilp-quote.ts; `quoting` in ./quote.ts) and its sending (./local.ts, ./ilp.ts;
// `sending` in ./index.ts), so that the functions that quote carry no sending code nor the
// permissions it needs, and the payment worker none of quoting's.
export type SendOutcome = 'completed' | 'failed' | 'skipped' | 'continued';

export type Sender = WalletRecord;
// A priced quote, before the quote's own fields (id, times, sender) are added; `expiresBy`: the
// receiver's expiry, which the quote's must not pass.
export type Priced = Pick<QuoteRecord, 'receiver' | 'debitAmount' | 'receiveAmount' | 'estimatedExchangeRate'> & MethodFields & { expiresBy?: string };

export interface PaymentMethod<Ahead = never> {
  // Prices the receiver for the amount the input names: the rate it pays at and the method's fields.
  // `sender`: the sending wallet's read, already under way (it rejects when there is none), so that
  // a method whose receiver is cheap to read reads both at once.
  quote(node: Node, input: CreateQuote, sender: Promise<Sender>): Promise<Priced>;
  // Optional: what the payment's queue message names (lib/quotes/method.ts readAheadOf), read by the
  // worker together with the payment, so that both take one round trip; handed to `send`.
  readAhead?(node: Node, message: PaymentMessage): Promise<Ahead | undefined>;
  // Sends the payment, as one attempt (`attempt` names it: the queue message's id). Ends it
  // completed or failed, or leaves it for a later attempt ('continued', or by throwing to retry).
  send(node: Node, payment: PaymentRecord, attempt: string, ahead?: Ahead): Promise<SendOutcome>;
  // The last attempt failed: end the payment, releasing what it holds, its funds left to withdraw.
  giveUp(node: Node, payment: PaymentRecord, attempt: string): Promise<void>;
}

export type Quoting = Pick<PaymentMethod, 'quote'>;
export type Sending<Ahead = never> = Omit<PaymentMethod<Ahead>, 'quote'>;

// What every method's pricing shares. Rounding favours the service: a receive amount is rounded
// down, a debit computed from a receive amount rounded up.

export interface Receiver {
  asset: { code: string; scale: number };
  remaining: bigint | null; // what it can still take, if it asks for an amount
}
export const sourceOf = (sender: Sender) => ({ code: sender.assetCode, scale: sender.assetScale });

// The amount the sender names, in the right asset; or, with none, the receiver's remaining amount.
export function target(input: CreateQuote, src: { code: string; scale: number }, receiver: Receiver): { debit?: bigint; receive?: bigint } {
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

export function checkAmounts(debit: bigint, receive: bigint, src: { scale: number }, receiver: Receiver) {
  if (receive <= 0n || debit <= 0n) throw quoteErrors.amountTooSmall();
  if (receiver.remaining !== null && receive > receiver.remaining) {
    throw quoteErrors.amountExceedsRemaining(String(receiver.remaining), receiver.asset.scale);
  }
  toLedger(debit, src.scale, 'debitAmount.value');
  toLedger(receive, receiver.asset.scale, 'receiveAmount.value');
}
