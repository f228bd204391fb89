import * as z from 'zod';
import { EVENT_SOURCE } from '../platform/events';
import { tenantId } from '../shared/values';
import { eventType } from './schemas';

// What the webhook queue and the parking queue carry (./schemas.ts RetryMessage, RedeliverMessage),
// as a message must be to be sent on: `npm run redrive` (infra/redrive.ts) checks each dead-lettered
// or parked one against these first. Each with the tenant the relay names on a tenant's
// (lib/platform/events/relay.ts). Apart from ./schemas.ts, which every Admin route's bundle holds.

const tenant = tenantId.optional();
// An event as the bus carries it (in the envelope's detail) and as it is parked (WebhookParkingQueue).
export const queuedEvent = z.strictObject({ id: z.string().min(1).max(128), type: eventType, createdAt: z.iso.datetime(), data: z.unknown(), tenant });
export const busEnvelope = z.object({ source: z.literal(EVENT_SOURCE), 'detail-type': eventType, detail: queuedEvent });
export const webhookQueueMessage = z.union([
  busEnvelope,
  z.strictObject({ webhookEvent: z.string().min(1).max(128), attempt: z.int().min(0), notBefore: z.iso.datetime(), tenant }),
  z.strictObject({ redeliver: z.string().min(1).max(128), tenant }),
]);
