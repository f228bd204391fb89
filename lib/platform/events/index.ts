import { randomUUID } from 'node:crypto';

// Domain events and queue messages leave through a transactional outbox: a state change writes
// them as outbox items in its own DynamoDB transaction, in the partition of the aggregate that
// changed, and answers at once. The table's stream feeds the outbox relay (./relay.ts), which puts
// events on the bus and messages on their queues. Nothing is published on the request path, and
// a transaction that fails publishes nothing. Delivery is at least once: every event keeps its
// id, which consumers de-duplicate on.
export const EVENT_SOURCE = 'payment-service';
// An outbox item's sort key (the relay's filterPatterns in serverless.yml match it) and how long it
// is kept: the relay reads items from the stream (kept 24 h); the items stay 15 days as a record of
// what was sent, and for re-driving (infra/redrive.ts) what the stream no longer has: a day longer
// than a record the relay parks is kept on its queue (14 days, SQS's most).
export const OUTBOX_SORT_PREFIX = 'OUT#';
export const OUTBOX_RETENTION_SECS = 15 * 24 * 3600;

export interface DomainEvent {
  id: string;
  type: string;
  createdAt: string;
  data: unknown;
}

export type Outbound = { kind: 'event'; event: DomainEvent } | { kind: 'message'; id: string; queueUrl: string; body: string; delaySeconds?: number };

// What a state change sends, and the partition (its aggregate's) in which the outbox item is written.
export type Outgoing = Outbound & { partition: string };

const domainEvent = (type: string, data: unknown): DomainEvent => ({ id: randomUUID(), type, createdAt: new Date().toISOString(), data });

export const event = (partition: string, type: string, data: unknown): Outgoing => ({ kind: 'event', partition, event: domainEvent(type, data) });

export const message = (partition: string, queueUrl: string, body: unknown, delaySeconds?: number): Outgoing => ({
  kind: 'message',
  partition,
  id: randomUUID(),
  queueUrl,
  body: JSON.stringify(body),
  ...(delaySeconds !== undefined && { delaySeconds }),
});
