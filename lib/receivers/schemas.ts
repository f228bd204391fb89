import * as z from 'zod';
import { amount } from '../shared/amounts';
import { metadata } from '../shared/values';

// A receiver: an incoming payment on any node, this one's (a payment intent) or another's, as
// whoever pays it sees it (Rafiki's Receiver). Made, read and completed on another node over Open
// Payments, as this node's own client.
export const createReceiverBody = z.strictObject({
  walletAddressUrl: z.string().max(512),
  incomingAmount: amount.optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  metadata,
});
export type CreateReceiver = z.infer<typeof createReceiverBody>;

export const receiverUrl = z.url({ protocol: /^https?$/ }).max(2048);
export const receiverQuery = z.strictObject({ url: receiverUrl });
export const completeReceiverBody = z.strictObject({ url: receiverUrl });

export const receiver = z.object({
  id: z.url().describe("The incoming payment's URL: a quote's receiver"),
  walletAddressUrl: z.url(),
  completed: z.boolean(),
  incomingAmount: amount.nullable(),
  receivedAmount: amount,
  expiresAt: z.iso.datetime().nullable(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
  createdAt: z.iso.datetime(),
});
export type Receiver = z.infer<typeof receiver>;
