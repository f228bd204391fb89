import type { Write } from '../platform/tx';
import type { Amount } from '../shared/amounts';
import type { Node } from '../shared/node';
import { quoteErrors } from './errors';
import type { Quote, QuoteRecord } from './schemas';
import * as store from './store';

// A quote states what the sender pays (debitAmount, in the sender's asset) to deliver
// receiveAmount (in the receiver's asset) to an incoming payment, priced by a payment method (./method.ts).
// Creating one is in lib/payments/methods, which prices by method: apart, because pricing a remote
// receiver carries the Interledger clients, which reading a quote (and every payment route) does not need.
export { quoteLookup } from './store';

// The write that records a quote just priced, for the transaction that creates it (or, a quote
// priced for one payment alone, the payment's: lib/payments).
export const recordQuote = (node: Node, r: QuoteRecord): Write => store.putQuote(node, r);

// The sending fee a quote (or its payment) includes in its debit amount: none before fees were.
export const feeOf = (r: Pick<QuoteRecord, 'debitAmount'> & { fee?: Amount }): Amount => r.fee ?? { ...r.debitAmount, value: '0' };

export function quoteView(r: QuoteRecord): Quote {
  return {
    id: r.id,
    walletAddress: r.walletAddress,
    receiver: r.receiver,
    debitAmount: r.debitAmount,
    receiveAmount: r.receiveAmount,
    fee: feeOf(r),
    ...(r.sendingFee && { sendingFee: r.sendingFee }),
    estimatedExchangeRate: r.estimatedExchangeRate,
    expiresAt: r.expiresAt,
    createdAt: r.createdAt,
  };
}

export const findQuote = (node: Node, id: string) => store.findQuote(node, id);

export async function getQuote(node: Node, id: string): Promise<Quote> {
  const r = await store.findQuote(node, id);
  if (!r) throw quoteErrors.notFound(id);
  return quoteView(r);
}
