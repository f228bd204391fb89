import * as z from 'zod';
import { amount } from '../amounts';
import type { FeeSchedule } from '../assets/schemas';
import { metadata, pageQuery } from '../values';
import { walletAddressUrl } from '../wallet-addresses/schemas';

export const createIntentBody = z.strictObject({
  walletAddress: z.string().max(512),
  incomingAmount: amount.optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  metadata,
});
export type CreateIntent = z.infer<typeof createIntentBody>;

export const intentStates = ['pending', 'processing', 'completed', 'expired'] as const;
export type IntentState = (typeof intentStates)[number];

export const paymentIntent = z.object({
  id: z.uuid(),
  // The same record as an Open Payments incoming payment, at this URL.
  url: z.url(),
  walletAddress: z.url(),
  incomingAmount: amount.nullable(),
  // What payers paid (which completes it at incomingAmount) is receivedAmount, credited to the
  // receiver, plus receivingFee, its asset's receiving fee.
  paidAmount: amount,
  receivedAmount: amount.describe('What was credited to the receiver: paidAmount less receivingFee'),
  receivingFee: amount.describe("The receiving fee taken from what was paid, in the intent's asset"),
  state: z.enum(intentStates),
  expiresAt: z.iso.datetime(),
  createdAt: z.iso.datetime(),
  metadata: z.record(z.string(), z.unknown()).nullable(),
});
export type PaymentIntent = z.infer<typeof paymentIntent>;

// GET /payment-intents: newest first, of one wallet address or all, in one state or any.
export const listIntentsQuery = pageQuery.extend({ walletAddress: walletAddressUrl.optional(), state: z.enum(intentStates).optional() });
export type ListIntentsQuery = z.infer<typeof listIntentsQuery>;

// What is stored: the view's fields plus what delivery needs.
export interface IntentRecord {
  id: string;
  walletAddress: string;
  walletAddressId: string;
  assetId: string;
  assetCode: string;
  assetScale: number;
  incomingValue: string | null;
  received: string; // what was paid (before the receiving fee)
  fee?: string; // the receiving fee taken from it so far (none before fees were)
  receivingFee?: FeeSchedule; // its asset's receiving fee when it was created, which it pays
  state: IntentState;
  expiresAt: string;
  createdAt: string;
  completedAt?: string;
  metadata: Record<string, unknown> | null;
  client?: string; // the Open Payments client that created it (lib/open-payments), if one did
}
