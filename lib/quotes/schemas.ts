import * as z from 'zod';
import { amount } from '../amounts';
import type { IlpQuoteDetails } from '../ilp/quote';

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
  debitAmount: amount,
  receiveAmount: amount,
  estimatedExchangeRate: z.number(),
  expiresAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
});
export type Quote = z.infer<typeof quote>;

// A local quote names the intent it pays; a remote one (paid over Interledger) what its probe found.
export interface QuoteRecord extends Quote {
  walletAddressId: string;
  sourceAssetId: string;
  intentId?: string;
  destinationAssetId?: string;
  ilp?: IlpQuoteDetails;
  paymentId?: string;
  client?: string; // the Open Payments client that asked for it (none: the FSP, on the Admin API)
}
