import * as z from 'zod';
import { amount } from '../amounts';
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
  debitAmount: amount,
  receiveAmount: amount,
  estimatedExchangeRate: z.number(),
  expiresAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
});
export type Quote = z.infer<typeof quote>;

// A quote as stored: with the payment method that priced it and will send its payment (./method.ts).
export type QuoteRecord = Quote &
  MethodFields & {
    walletAddressId: string;
    sourceAssetId: string;
    paymentId?: string;
    client?: string; // the Open Payments client that asked for it (none: the FSP, on the Admin API)
  };
