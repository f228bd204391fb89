import * as z from 'zod';
import type { MethodFields } from '../quotes/method';
import { type Amount, amount } from '../shared/amounts';
import { metadata, windowedPageQuery } from '../shared/values';
import { walletAddressUrl } from '../wallet-addresses/schemas';

export const createPaymentBody = z.strictObject({
  walletAddress: z.string().max(512),
  quoteId: z.uuid(),
  metadata,
});
export type CreatePayment = z.infer<typeof createPaymentBody>;

export const paymentStates = ['funding', 'sending', 'completed', 'failed', 'cancelled'] as const;
export type PaymentState = (typeof paymentStates)[number];

// Why the service cancelled a payment itself (an FSP's cancel has no reason): its quote expired
// before it was funded, so it never can be (lib/payments/states.ts).
export const paymentCancelReasons = ['quote_expired'] as const;
export type PaymentCancelReason = (typeof paymentCancelReasons)[number];

export const payment = z.object({
  id: z.uuid(),
  walletAddress: z.url(),
  quoteId: z.uuid(),
  receiver: z.url(),
  debitAmount: amount,
  receiveAmount: amount,
  fee: amount.describe('The sending fee, in the debit asset, included in debitAmount; taken when the payment completes'),
  sentAmount: amount,
  state: z.enum(paymentStates),
  failureReason: z.string().optional(),
  // Only when the service cancelled it (never when the FSP did).
  cancelReason: z.enum(paymentCancelReasons).optional().describe('quote_expired: its quote expired unfunded'),
  createdAt: z.iso.datetime(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  // An outgoing payment an app created over Open Payments: the grant it was created under, and the
  // client it was granted to.
  grantId: z.string().optional(),
  client: z.string().optional(),
});
export type Payment = z.infer<typeof payment>;

// GET /payments: newest first, of one wallet address or all, in one state or any; narrowed to a
// receiver, a metadata key's value, a window of creation times [from, to).
export const listPaymentsQuery = windowedPageQuery({
  walletAddress: walletAddressUrl.optional(),
  state: z.enum(paymentStates).optional(),
  receiver: z.string().min(1).max(2048).optional().describe("What it pays: an incoming payment's URL, or this node's payment intent's id"),
  metadataKey: z.string().min(1).max(256).optional().describe('With metadataValue: payments whose metadata has this key, at its top level'),
  metadataValue: z.string().max(1024).optional().describe("With metadataKey: the key's value, a string"),
})
  .refine((q) => q.metadataKey === undefined || q.metadataValue !== undefined, { message: 'must be given with metadataKey', path: ['metadataValue'] })
  .refine((q) => q.metadataValue === undefined || q.metadataKey !== undefined, { message: 'must be given with metadataValue', path: ['metadataKey'] });
export type ListPaymentsQuery = z.infer<typeof listPaymentsQuery>;

// A payment as stored: with its quote's payment method and that method's fields (lib/quotes/method.ts).
export type PaymentRecord = MethodFields & {
  id: string; // named by its quote (lib/payments paymentIdOf); a payment made before then has a random or signed one
  walletAddress: string;
  walletAddressId: string;
  quoteId: string;
  receiver: string;
  sourceAssetId: string;
  debitAmount: Amount;
  receiveAmount: Amount;
  fee?: Amount; // its quote's sending fee (none on a payment made before fees were)
  sentAmount: Amount;
  quoteExpiresAt: string; // a payment is funded at its quote's rate only while the quote is valid
  state: PaymentState;
  failureReason?: string;
  cancelReason?: PaymentCancelReason;
  createdAt: string;
  metadata: Record<string, unknown> | null;
  grantId?: string;
  client?: string;
  // The period of its grant it was charged in (lib/open-payments/interval.ts): its debit and
  // receive amounts, given back there, less what left, when it ends.
  grantPeriod?: string;
  // The id its signed Admin request drew (lib/shared/audited GUARD_ID), by which a replay of that
  // request is told from another request for the same quote.
  guardId?: string;
};

// What the payments queue carries: a funded payment to send, and what its method has the worker
// read together with it (lib/payments/methods: a local payment's intent and its wallet address).
export interface PaymentMessage {
  paymentId: string;
  intentId?: string;
  walletAddress?: string;
}
