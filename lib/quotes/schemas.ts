import * as z from 'zod';
import { feeSchedule } from '../assets/schemas';
import { type Amount, amount } from '../shared/amounts';
import type { MethodFields } from './method';

export const createQuoteBody = z.strictObject({
  walletAddress: z.string().max(512),
  receiver: z.string().max(512),
  debitAmount: amount.optional(),
  receiveAmount: amount.optional(),
});
export type CreateQuote = z.infer<typeof createQuoteBody>;

export const quote = z.object({
  id: z.uuid(),
  walletAddress: z.url(),
  receiver: z.url(),
  // What the sender is debited: what is sent to the receiver, and `fee`, the sending fee.
  debitAmount: amount,
  receiveAmount: amount,
  fee: amount.describe('The sending fee, in the debit asset, included in debitAmount'),
  // The debit asset's sending fee when the quote was made, which its fee was computed by.
  sendingFee: feeSchedule.optional(),
  estimatedExchangeRate: z.number(),
  expiresAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
});
export type Quote = z.infer<typeof quote>;

// A quote as stored: with the payment method that priced it and will send its payment (./method.ts).
export type QuoteRecord = Omit<Quote, 'fee'> &
  MethodFields & {
    fee?: Amount; // none on a quote made before fees were

    walletAddressId: string;
    sourceAssetId: string;
    paymentId?: string; // the payment that took it, on a quote taken before payments were named by their quotes
    client?: string; // the Open Payments client that asked for it (none: the FSP, on the Admin API)
  };
