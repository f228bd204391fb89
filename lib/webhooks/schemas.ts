import * as z from 'zod';
import { pageQuery } from '../shared/values';

export const webhookStatuses = ['pending', 'delivered', 'failed'] as const;

// Every event type's name: the catalog (./catalog.ts) describes each, and must name these exactly;
// the store lists records by type through them, without the catalog's schemas in its bundle.
export const webhookEventNames = [
  'asset.updated',
  'asset.liquidity_low',
  'peer.liquidity_low',
  'wallet_address.updated',
  'wallet_address.not_found',
  'grant.revoked',
  'payment_intent.created',
  'payment_intent.approved',
  'payment_intent.cancelled',
  'payment_intent.completed',
  'payment_intent.expired',
  'payment.created',
  'payment.funded',
  'payment.completed',
  'payment.failed',
  'payment.cancelled',
  'liquidity_withdrawal.created',
  'liquidity_withdrawal.posted',
  'liquidity_withdrawal.voided',
] as const;

export const attempt = z.object({
  at: z.iso.datetime(),
  status: z.int().optional(),
  error: z.string().optional(),
  ms: z.number(),
});
export type Attempt = z.infer<typeof attempt>;

export const webhookEvent = z.object({
  id: z.string(),
  type: z.string(),
  createdAt: z.iso.datetime(),
  status: z.enum(webhookStatuses),
  attempts: z.array(attempt),
  // While pending: when its next attempt is due.
  nextAttemptAt: z.iso.datetime().optional(),
  data: z.unknown(),
});
export type WebhookEvent = z.infer<typeof webhookEvent>;

// Without a status, every event; `type` and `resourceId` (the id in its data) narrow the list.
export const eventType = z.string().regex(/^[a-z_]+\.[a-z_]+$/, 'must be an event type, e.g. payment.completed');

export const listQuery = pageQuery.extend({
  status: z.enum(webhookStatuses).optional(),
  type: eventType.optional(),
  resourceId: z.string().min(1).max(128).optional(),
});
export type ListQuery = z.infer<typeof listQuery>;

export const eventIdParams = z.object({ id: z.string().min(1).max(128) });

// A message on the webhook queue: EventBridge's envelope for the first attempt, or our own for
// attempt k (k attempts made before it) with the time it may run, or for a parked event sent back
// (`npm run redrive -- WebhookParkingQueue`), which is redelivered if its record still says failed.
export interface RetryMessage {
  webhookEvent: string;
  attempt: number;
  notBefore: string;
}
export interface RedeliverMessage {
  redeliver: string;
}
