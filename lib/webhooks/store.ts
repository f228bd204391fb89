import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../db';
import type { DomainEvent } from '../events';
import type { Node } from '../node';
import { queryNewestFirst, shardKeys, shardOf } from '../store';
import type { Write } from '../tx';
import { type Attempt, type WebhookEvent, webhookStatuses } from './schemas';

// Delivery records: one per event id, listed by status, newest first, through the ByStatus index,
// where each status is spread over STATUS_SHARDS partitions (every attempt moves its record).
const RETENTION_SECS = 30 * 24 * 3600;
const STATUS_SHARDS = 16;
const statusShard = (id: string, status: string) => `${status}#${shardOf(id, STATUS_SHARDS)}`;
// The outbox items of a webhook event (its retry and dead-letter messages) go in the main table,
// whose stream the outbox relay reads, under this partition.
export const partition = (id: string) => `WEBHOOK#${id}`;

export interface WebhookRecord extends WebhookEvent {
  failures: number; // failed attempts in the current run (reset by a redelivery)
  ttl: number;
}

const toRecord = (i: Record<string, any>): WebhookRecord => ({
  id: i.id,
  type: i.type,
  createdAt: i.createdAt,
  status: i.status,
  attempts: i.attempts ?? [],
  ...(i.nextAttemptAt && { nextAttemptAt: i.nextAttemptAt }),
  data: JSON.parse(i.data),
  failures: i.failures ?? 0,
  ttl: i.ttl,
});

// A new record, written with its first attempt (and, while pending, when the next is due); it fails
// if the event already has one (the message was a duplicate).
export function firstRecord(node: Node, event: DomainEvent, a: Attempt, status: WebhookRecord['status'], failures: number, nextAttemptAt?: string): Write {
  const record: WebhookRecord = {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    data: event.data,
    status,
    attempts: [a],
    ...(nextAttemptAt && { nextAttemptAt }),
    failures,
    ttl: Math.floor(Date.parse(event.createdAt) / 1000) + RETENTION_SECS,
  };
  // The event's data as JSON text: it can hold FSP metadata that DynamoDB attributes cannot.
  return {
    Put: {
      TableName: node.tables.webhookEvents,
      Item: {
        ...record,
        data: JSON.stringify(record.data),
        ...(typeof (record.data as { id?: unknown })?.id === 'string' && { resourceId: (record.data as { id: string }).id }),
        statusShard: statusShard(event.id, status),
        statusSort: `${event.createdAt}#${event.id}`,
      },
      ConditionExpression: 'attribute_not_exists(id)',
    },
  };
}

export async function findRecord(node: Node, id: string): Promise<WebhookRecord | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.webhookEvents, Key: { id }, ConsistentRead: true }));
  return Item && toRecord(Item);
}

// Appends attempt number `made` (0-based) and sets the status (and, while pending, when the next
// attempt is due), on condition that nobody else recorded that attempt first.
export function recordAttempt(
  node: Node,
  id: string,
  made: number,
  a: Attempt,
  status: WebhookRecord['status'],
  failures: number,
  nextAttemptAt?: string,
): Write {
  return {
    Update: {
      TableName: node.tables.webhookEvents,
      Key: { id },
      UpdateExpression: `SET attempts = list_append(attempts, :a), #status = :status, statusShard = :shard, failures = :failures${nextAttemptAt ? ', nextAttemptAt = :next' : ' REMOVE nextAttemptAt'}`,
      ConditionExpression: 'size(attempts) = :made AND #status = :pending',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':a': [a],
        ':status': status,
        ':shard': statusShard(id, status),
        ':failures': failures,
        ':made': made,
        ':pending': 'pending',
        ...(nextAttemptAt && { ':next': nextAttemptAt }),
      },
    },
  };
}

// Puts an event back to pending for a new run of attempts, the first due `at`, on condition that
// it is as `r` was read. A pending one (its next attempt overdue) also gets `skipped` as an attempt,
// so that the new run's message is for the next attempt number and the overdue one, were it ever
// to come, finds its attempt taken and does nothing.
export function reopen(node: Node, r: WebhookRecord, at: string, skipped?: Attempt): Write {
  return {
    Update: {
      TableName: node.tables.webhookEvents,
      Key: { id: r.id },
      UpdateExpression: `SET #status = :pending, statusShard = :shard, failures = :zero, nextAttemptAt = :at${skipped ? ', attempts = list_append(attempts, :skipped)' : ''}`,
      ConditionExpression: `#status = :was AND size(attempts) = :made AND ${r.nextAttemptAt ? 'nextAttemptAt = :due' : 'attribute_not_exists(nextAttemptAt)'}`,
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: {
        ':pending': 'pending',
        ':shard': statusShard(r.id, 'pending'),
        ':zero': 0,
        ':at': at,
        ':was': r.status,
        ':made': r.attempts.length,
        ...(r.nextAttemptAt && { ':due': r.nextAttemptAt }),
        ...(skipped && { ':skipped': [skipped] }),
      },
    },
  };
}

// Newest first, of one status or all, optionally of one event type or one resource (the id in the
// event's data, kept as `resourceId`).
export async function listRecords(node: Node, q: { status?: string; type?: string; resourceId?: string; limit: number; cursor?: string }) {
  const statuses = q.status ? [q.status] : webhookStatuses;
  const conditions = [...(q.type ? ['#type = :type'] : []), ...(q.resourceId ? ['resourceId = :resourceId'] : [])];
  const page = await queryNewestFirst({
    table: node.tables.webhookEvents,
    index: 'ByStatus',
    partitionKey: 'statusShard',
    sortKey: 'statusSort',
    partitions: statuses.flatMap((status) => shardKeys(status, STATUS_SHARDS)),
    limit: q.limit,
    cursor: q.cursor,
    ...(conditions.length && {
      filter: {
        expression: conditions.join(' AND '),
        names: q.type ? { '#type': 'type' } : {},
        values: { ...(q.type && { ':type': q.type }), ...(q.resourceId && { ':resourceId': q.resourceId }) },
      },
    }),
  });
  return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
}
