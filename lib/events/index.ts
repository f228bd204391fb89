import { randomUUID } from 'node:crypto';
import { config } from '../config';
import type { TransactItem } from '../table';

// Domain events and queue messages leave through a transactional outbox: a state change writes
// them as outbox items in its own DynamoDB transaction, in the partition of the aggregate that
// changed, and answers at once. The table's stream feeds the outbox relay (./relay.ts), which puts
// events on the bus and messages on their queues. Nothing is published on the request path, and
// a transaction that fails publishes nothing. Delivery is at least once: every event keeps its
// id, which consumers de-duplicate on.
export const EVENT_SOURCE = 'payment-service';
const OUTBOX_SORT_PREFIX = 'OUT#'; // the relay's filterPatterns in serverless.yml match it
// The relay reads items from the stream (kept 24 h); the items stay a week as a record of what
// was sent, and for re-driving by hand should the relay ever be down longer than the stream keeps.
const OUTBOX_RETENTION_SECS = 7 * 24 * 3600;

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

// One outbox item per partition that the change sends from, holding all it sends (so a change
// costs its transaction one item more, not one per event).
export function outboxItems(outgoing: Outgoing[]): TransactItem[] {
  const ttl = Math.floor(Date.now() / 1000) + OUTBOX_RETENTION_SECS;
  const byPartition = new Map<string, Outbound[]>();
  for (const { partition, ...out } of outgoing) byPartition.set(partition, [...(byPartition.get(partition) ?? []), out]);
  return [...byPartition].map(([partition, out]) => ({
    Put: {
      TableName: config.MAIN_TABLE,
      // As JSON text: event data holds FSP metadata, which DynamoDB attributes cannot always hold.
      Item: { pk: partition, sk: `${OUTBOX_SORT_PREFIX}${out[0].kind === 'event' ? out[0].event.id : out[0].id}`, out: JSON.stringify(out), ttl },
    },
  }));
}
