import * as z from 'zod';
import type { FeeSchedule } from '../assets/schemas';
import { amount } from '../shared/amounts';
import { metadata, pageQuery, printable } from '../shared/values';
import { walletAddressUrl } from '../wallet-addresses/schemas';

export const createIntentBody = z.strictObject({
  walletAddress: z.string().max(512),
  incomingAmount: amount.optional(),
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  metadata,
});
export type CreateIntent = z.infer<typeof createIntentBody>;

export const intentStates = ['pending_approval', 'pending', 'processing', 'completed', 'expired', 'cancelled'] as const;
export type IntentState = (typeof intentStates)[number];

// POST /payment-intents/{id}/cancel: why the FSP refused it, kept and sent in the webhook.
export const cancelIntentBody = z.strictObject({ reason: printable(z.string().trim().min(1).max(500)) });

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
  // Once the FSP decided on an intent held for approval.
  approvedAt: z.iso.datetime().optional(),
  cancelledAt: z.iso.datetime().optional(),
  cancelReason: z.string().optional(),
  // Once an intent with an incomingAmount closed short of it (expired, or completed by the FSP)
  // with something received: what the recipient keeps, and what went back to the local payments
  // that paid it (INCOMING_PARTIAL_PAYMENTS, docs/payments.md).
  partialPayment: z.object({ keptAmount: amount, returnedAmount: amount, returnedTo: z.array(z.object({ paymentId: z.uuid(), amount })) }).optional(),
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
  approvedAt?: string;
  cancelledAt?: string;
  cancelReason?: string;
  // Credits that go back if the intent closes short under INCOMING_PARTIAL_PAYMENTS=return, kept
  // while it is open, and then those that did: each `<payment id>:<value at the intent's scale>`.
  returnable?: string[];
  returned?: string[];
  metadata: Record<string, unknown> | null;
  client?: string; // the Open Payments client that created it (lib/open-payments), if one did
}
