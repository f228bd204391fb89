import type { DomainEvent } from '../platform/events';
import { getOne, type Lookup, pageOfListed, queryNewestFirst, scoped, shardKeys, shardOf } from '../platform/store';
import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';
import { type Attempt, type WebhookEvent, webhookEventNames } from './schemas';

// Delivery records: one per event id. Those pending or failed are listed by status, newest first,
// through the ByStatus index, where each status is spread over STATUS_SHARDS partitions (every
// attempt moves its record). A delivered record leaves it (no statusShard: the index is sparse), so
// that the common case, an event delivered, copies nothing there; delivered records, and all records,
// are listed through their types' partitions of ByLookup (below), which every record is in.
const RETENTION_SECS = 30 * 24 * 3600;
const ttlOf = (createdAt: string) => Math.floor(Date.parse(createdAt) / 1000) + RETENTION_SECS;
const STATUS_SHARDS = 16;
const byStatus = (status: WebhookRecord['status']) => status !== 'delivered';
const statusShard = (node: Node, id: string, status: string) => scoped(node, `${status}#${shardOf(id, STATUS_SHARDS)}`);
// A record's key: its event's id, in the tenant's key space (the record keeps the bare id too).
const recordKey = (node: Node, id: string) => ({ id: scoped(node, id) });
// The outbox items of a webhook event (its retry and dead-letter messages) go in the main table,
// whose stream the outbox relay reads, under this partition.
export const partition = (node: Node, id: string) => scoped(node, `WEBHOOK#${id}`);

// A record is also found by its event's type, and by the resource its event is about (the id in its
// data), through one partition of the ByLookup index each (lookupPk), newest first (statusSort):
// the record itself is under `type:<type>`; a small lookup item beside it (key `<id>#resource`)
// is under `resource:<resourceId>`. The index holds keys, `status` and `type` only, so that the
// attempts which rewrite a record do not rewrite it: only a record's creation and its changes of
// status do, and those also rewrite the lookup item, whose status a look-up filters on.
// Hot partitions: one index partition takes 1,000 writes a second (each entry is under 1 KB). A
// type's partition takes one or two per event (its creation, and its last change of status if it
// came later), and each event of a type comes from one request or packet that makes at most one:
// with the default throttles (API_THROTTLE_RATE 200 a second for the Admin API and for the resource
// server), a few hundred a second, within that budget; throttles raised to near 1,000 would call for
// sharding the type's partitions.
const LOOKUP_SUFFIX = '#resource';
const byType = (node: Node, type: string) => scoped(node, `type:${type}`);
const byResource = (node: Node, resourceId: string) => scoped(node, `resource:${resourceId}`);
const resourceOf = (data: unknown) => (typeof (data as { id?: unknown })?.id === 'string' ? (data as { id: string }).id : undefined);
const sortKeyOf = (r: Pick<WebhookEvent, 'id' | 'createdAt'>) => `${r.createdAt}#${r.id}`;

export interface WebhookRecord extends WebhookEvent {
  failures: number; // failed attempts in the current run (reset by a redelivery)
  ttl: number;
}

const toRecord = (i: Record<string, any>): WebhookRecord => ({
  id: i.eventId ?? i.id,
  type: i.type,
  createdAt: i.createdAt,
  status: i.status,
  attempts: i.attempts ?? [],
  ...(i.nextAttemptAt && { nextAttemptAt: i.nextAttemptAt }),
  data: JSON.parse(i.data),
  failures: i.failures ?? 0,
  ttl: i.ttl,
});

// The lookup item of an event about a resource, with the event's status (none for another event).
type Looked = Pick<WebhookEvent, 'id' | 'type' | 'createdAt' | 'data'>;
function lookupItem(node: Node, r: Looked, status: WebhookRecord['status']): Write[] {
  const resourceId = resourceOf(r.data);
  if (resourceId === undefined) return [];
  const Item = {
    ...recordKey(node, `${r.id}${LOOKUP_SUFFIX}`),
    lookupPk: byResource(node, resourceId),
    statusSort: sortKeyOf(r),
    status,
    type: r.type,
    ttl: ttlOf(r.createdAt),
  };
  return [{ Put: { TableName: node.tables.webhookEvents, Item } }];
}

// A new record, written with its first attempt (and, while pending, when the next is due), and its
// lookup item; it fails if the event already has one (the message was a duplicate).
export function firstRecord(node: Node, event: DomainEvent, a: Attempt, status: WebhookRecord['status'], failures: number, nextAttemptAt?: string): Write[] {
  const record: WebhookRecord = {
    id: event.id,
    type: event.type,
    createdAt: event.createdAt,
    data: event.data,
    status,
    attempts: [a],
    ...(nextAttemptAt && { nextAttemptAt }),
    failures,
    ttl: ttlOf(event.createdAt),
  };
  // The event's data as JSON text: it can hold FSP metadata that DynamoDB attributes cannot.
  return [
    {
      Put: {
        TableName: node.tables.webhookEvents,
        Item: {
          ...record,
          ...recordKey(node, event.id),
          eventId: event.id,
          data: JSON.stringify(record.data),
          ...(byStatus(status) && { statusShard: statusShard(node, event.id, status) }),
          statusSort: sortKeyOf(event),
          lookupPk: byType(node, event.type),
        },
        ConditionExpression: 'attribute_not_exists(id)',
      },
    },
    ...lookupItem(node, record, status),
  ];
}

// (A lookup item's key is no event's: an id that ends so is none.)
export const recordLookup = (node: Node, id: string): Lookup<WebhookRecord> => ({
  table: node.tables.webhookEvents,
  key: recordKey(node, id),
  read: (item) => (id.endsWith(LOOKUP_SUFFIX) ? undefined : toRecord(item)),
});
export const findRecord = (node: Node, id: string) => getOne(recordLookup(node, id));

// The lookup item of a record as it is (none for an event about no resource).
export const lookupOf = (node: Node, r: WebhookRecord): Write[] => lookupItem(node, r, r.status);
// Lookup items written alone, not in their record's transaction: only where none is yet, so that a
// late one never overwrites the item a later change of the record wrote (a redelivery's `pending`);
// one refused so has nothing to repair.
export const whereMissing = (lookup: Write[]): Write[] => lookup.map((w) => ({ Put: { ...w.Put!, ConditionExpression: 'attribute_not_exists(id)' } }));

// Appends attempt number `made` (0-based) to `r` and sets the status (and, while pending, when the
// next attempt is due), on condition that nobody else recorded that attempt first. A change of
// status also rewrites the lookup item, and sets the record's lookup key (which a record written
// before there were look-ups lacks).
export function recordAttempt(
  node: Node,
  r: Looked,
  made: number,
  a: Attempt,
  status: WebhookRecord['status'],
  failures: number,
  nextAttemptAt?: string,
): Write[] {
  const moved = status !== 'pending';
  const sets = ['attempts = list_append(attempts, :a)', '#status = :status', 'failures = :failures'];
  const removes: string[] = [];
  (byStatus(status) ? sets : removes).push(byStatus(status) ? 'statusShard = :shard' : 'statusShard');
  if (moved) sets.push('lookupPk = :lookup');
  if (nextAttemptAt) sets.push('nextAttemptAt = :next');
  else removes.push('nextAttemptAt');
  return [
    {
      Update: {
        TableName: node.tables.webhookEvents,
        Key: recordKey(node, r.id),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: 'size(attempts) = :made AND #status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':a': [a],
          ':status': status,
          ...(byStatus(status) && { ':shard': statusShard(node, r.id, status) }),
          ':failures': failures,
          ':made': made,
          ':pending': 'pending',
          ...(moved && { ':lookup': byType(node, r.type) }),
          ...(nextAttemptAt && { ':next': nextAttemptAt }),
        },
      },
    },
    ...(moved ? lookupItem(node, r, status) : []),
  ];
}

// Puts an event back to pending for a new run of attempts, the first due `at`, on condition that
// it is as `r` was read. A pending one (its next attempt overdue) also gets `skipped` as an attempt,
// so that the new run's message is for the next attempt number and the overdue one, were it ever
// to come, finds its attempt taken and does nothing. Its lookups are kept as recordAttempt keeps them.
export function reopen(node: Node, r: WebhookRecord, at: string, skipped?: Attempt): Write[] {
  return [
    {
      Update: {
        TableName: node.tables.webhookEvents,
        Key: recordKey(node, r.id),
        UpdateExpression: `SET #status = :pending, statusShard = :shard, failures = :zero, nextAttemptAt = :at, lookupPk = :lookup${skipped ? ', attempts = list_append(attempts, :skipped)' : ''}`,
        ConditionExpression: `#status = :was AND size(attempts) = :made AND ${r.nextAttemptAt ? 'nextAttemptAt = :due' : 'attribute_not_exists(nextAttemptAt)'}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':shard': statusShard(node, r.id, 'pending'),
          ':zero': 0,
          ':at': at,
          ':lookup': byType(node, r.type),
          ':was': r.status,
          ':made': r.attempts.length,
          ...(r.nextAttemptAt && { ':due': r.nextAttemptAt }),
          ...(skipped && { ':skipped': [skipped] }),
        },
      },
    },
    ...(r.status === 'pending' ? [] : lookupItem(node, r, 'pending')),
  ];
}

// Newest first, of one status or all, optionally of one event type or one resource (the id in the
// event's data): those from their ByLookup partition (one query, filtered by status, and by type
// for a resource), then the page's records (one BatchGetItem); pending or failed ones from the
// ByStatus index; delivered ones, or all, from every type's ByLookup partition, merged.
export async function listRecords(node: Node, q: { status?: WebhookRecord['status']; type?: string; resourceId?: string; limit: number; cursor?: string }) {
  const query = { table: node.tables.webhookEvents, sortKey: 'statusSort', limit: q.limit, cursor: q.cursor };
  if (q.resourceId === undefined && q.type === undefined && q.status !== undefined && byStatus(q.status)) {
    const page = await queryNewestFirst({ ...query, index: 'ByStatus', partitionKey: 'statusShard', partitions: shardKeys(node, q.status, STATUS_SHARDS) });
    return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
  }
  const lookupPks =
    q.resourceId !== undefined
      ? [byResource(node, q.resourceId)]
      : q.type !== undefined
        ? [byType(node, q.type)]
        : webhookEventNames.map((type) => byType(node, type));
  const type = q.resourceId !== undefined ? q.type : undefined; // a type partition holds that type only
  const conditions = [...(q.status ? ['#status = :status'] : []), ...(type ? ['#type = :type'] : [])];
  const page = await pageOfListed({
    ...query,
    index: 'ByLookup',
    partitionKey: 'lookupPk',
    partitions: lookupPks,
    ...(conditions.length && {
      filter: {
        expression: conditions.join(' AND '),
        names: { ...(q.status && { '#status': 'status' }), ...(type && { '#type': 'type' }) },
        values: { ...(q.status && { ':status': q.status }), ...(type && { ':type': type }) },
      },
    }),
    // The entry's sort key ends with its event's id (an ISO time has no '#').
    recordKey: ({ statusSort }) => recordKey(node, statusSort.slice(statusSort.indexOf('#') + 1)),
  });
  return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
}
