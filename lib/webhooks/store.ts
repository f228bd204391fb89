import type { DomainEvent } from '../platform/events';
import { getAll, getOne, type Lookup, pageOfListed, queryNewestFirst, scoped, shardKeys, shardOf } from '../platform/store';
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

// A record is also found by its event's type, through its type's partition of the ByLookup index
// (lookupPk = `type:<type>`), and by the resource its event is about (the id in its data), through
// that resource's partition of the ByResource index (resourcePk = `resource:<id>`), both newest
// first (statusSort). Each index holds keys, `status` and `type` only, so that the attempts which
// rewrite a record do not rewrite them: only a record's creation and its changes of status do.
// Hot partitions: one index partition takes 1,000 writes a second (each entry is under 1 KB). A
// type's partition takes one or two per event (its creation, and its last change of status if it
// came later), and each event of a type comes from one request or packet that makes at most one:
// with the default throttles (API_THROTTLE_RATE 200 a second for the Admin API and for the resource
// server), a few hundred a second, within that budget; throttles raised to near 1,000 would call for
// sharding the type's partitions. A resource's partition takes its few events' writes.
const byType = (node: Node, type: string) => scoped(node, `type:${type}`);
const byResource = (node: Node, resourceId: string) => scoped(node, `resource:${resourceId}`);
const resourceOf = (data: unknown) => (typeof (data as { id?: unknown })?.id === 'string' ? (data as { id: string }).id : undefined);
const sortKeyOf = (r: Pick<WebhookEvent, 'id' | 'createdAt'>) => `${r.createdAt}#${r.id}`;
// The record's key named by an index entry's sort key, which ends with its event's id (an ISO time has no '#').
const keyOfEntry = (node: Node, { statusSort }: Record<string, any>) => recordKey(node, statusSort.slice(statusSort.indexOf('#') + 1));

// LEGACY, until 2026-12-31 at the earliest: 30 days after a deployment takes the release that made
// ByResource, and DynamoDB's TTL lag (CONTRIBUTING.md, "Data from earlier versions"). A record written before ByResource has no
// resourcePk, and a small lookup item beside it (key `<id>#resource`) under the resource's
// partition of ByLookup (lookupPk = `resource:<id>`), with the record's status as it was then.
// Nothing writes one any more: listRecords reads them (byResourceWithLegacy) until they expire
// with their records, and a record's change of status sets its resourcePk (resourcePkOf, in
// recordAttempt and reopen), after which its lookup item, whose status it leaves as it was, no
// longer counts. (A record written since has it already: the same value again.)
const LEGACY_LOOKUP_SUFFIX = '#resource';
const resourcePkOf = (node: Node, data: unknown) => {
  const resourceId = resourceOf(data);
  return resourceId === undefined ? undefined : byResource(node, resourceId);
};

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

// What recordAttempt needs of a record: its event.
type Looked = Pick<WebhookEvent, 'id' | 'type' | 'createdAt' | 'data'>;

// A new record, written with its first attempt (and, while pending, when the next is due), one
// item; it fails if the event already has one (the message was a duplicate).
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
  const resourcePk = resourcePkOf(node, event.data);
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
          ...(resourcePk && { resourcePk }),
        },
        ConditionExpression: 'attribute_not_exists(id)',
      },
    },
  ];
}

// (LEGACY, as above: a lookup item's key is no event's, so an id that ends so is none.)
export const recordLookup = (node: Node, id: string): Lookup<WebhookRecord> => ({
  table: node.tables.webhookEvents,
  key: recordKey(node, id),
  read: (item) => (id.endsWith(LEGACY_LOOKUP_SUFFIX) ? undefined : toRecord(item)),
});
export const findRecord = (node: Node, id: string) => getOne(recordLookup(node, id));

// Appends attempt number `made` (0-based) to `r` and sets the status (and, while pending, when the
// next attempt is due), on condition that nobody else recorded that attempt first. A change of
// status also sets the record's lookup keys (which a record written before ByLookup, or before
// ByResource, lacks: LEGACY, above).
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
  const resourcePk = moved ? resourcePkOf(node, r.data) : undefined;
  const sets = ['attempts = list_append(attempts, :a)', '#status = :status', 'failures = :failures'];
  const removes: string[] = [];
  (byStatus(status) ? sets : removes).push(byStatus(status) ? 'statusShard = :shard' : 'statusShard');
  if (moved) sets.push('lookupPk = :lookup');
  if (resourcePk) sets.push('resourcePk = :resource');
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
          ...(resourcePk && { ':resource': resourcePk }),
          ...(nextAttemptAt && { ':next': nextAttemptAt }),
        },
      },
    },
  ];
}

// Puts an event back to pending for a new run of attempts, the first due `at`, on condition that
// it is as `r` was read. A pending one (its next attempt overdue) also gets `skipped` as an attempt,
// so that the new run's message is for the next attempt number and the overdue one, were it ever
// to come, finds its attempt taken and does nothing. Its lookup keys are set as recordAttempt sets them.
export function reopen(node: Node, r: WebhookRecord, at: string, skipped?: Attempt): Write[] {
  const resourcePk = resourcePkOf(node, r.data);
  const sets = [
    '#status = :pending, statusShard = :shard, failures = :zero, nextAttemptAt = :at, lookupPk = :lookup',
    ...(resourcePk ? ['resourcePk = :resource'] : []),
    ...(skipped ? ['attempts = list_append(attempts, :skipped)'] : []),
  ];
  return [
    {
      Update: {
        TableName: node.tables.webhookEvents,
        Key: recordKey(node, r.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: `#status = :was AND size(attempts) = :made AND ${r.nextAttemptAt ? 'nextAttemptAt = :due' : 'attribute_not_exists(nextAttemptAt)'}`,
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':pending': 'pending',
          ':shard': statusShard(node, r.id, 'pending'),
          ':zero': 0,
          ':at': at,
          ':lookup': byType(node, r.type),
          ...(resourcePk && { ':resource': resourcePk }),
          ':was': r.status,
          ':made': r.attempts.length,
          ...(r.nextAttemptAt && { ':due': r.nextAttemptAt }),
          ...(skipped && { ':skipped': [skipped] }),
        },
      },
    },
  ];
}

// Newest first, of one status or all, optionally of one event type or one resource (the id in the
// event's data): those from their partition of ByLookup (a type's) or ByResource (a resource's: one
// query, filtered by status and type), then the page's records (one BatchGetItem); pending or
// failed ones from the ByStatus index; delivered ones, or all, from every type's ByLookup
// partition, merged.
export async function listRecords(node: Node, q: { status?: WebhookRecord['status']; type?: string; resourceId?: string; limit: number; cursor?: string }) {
  const query = { table: node.tables.webhookEvents, sortKey: 'statusSort', limit: q.limit, cursor: q.cursor };
  if (q.resourceId === undefined && q.type === undefined && q.status !== undefined && byStatus(q.status)) {
    const page = await queryNewestFirst({ ...query, index: 'ByStatus', partitionKey: 'statusShard', partitions: shardKeys(node, q.status, STATUS_SHARDS) });
    return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
  }
  const type = q.resourceId !== undefined ? q.type : undefined; // a type partition holds that type only
  const conditions = [...(q.status ? ['#status = :status'] : []), ...(type ? ['#type = :type'] : [])];
  const filtered = {
    ...query,
    ...(conditions.length && {
      filter: {
        expression: conditions.join(' AND '),
        names: { ...(q.status && { '#status': 'status' }), ...(type && { '#type': 'type' }) },
        values: { ...(q.status && { ':status': q.status }), ...(type && { ':type': type }) },
      },
    }),
  };
  if (q.resourceId !== undefined) return byResourceWithLegacy(node, filtered, q.resourceId);
  const page = await pageOfListed({
    ...filtered,
    index: 'ByLookup',
    partitionKey: 'lookupPk',
    partitions: q.type !== undefined ? [byType(node, q.type)] : webhookEventNames.map((t) => byType(node, t)),
    recordKey: (entry) => keyOfEntry(node, entry),
  });
  return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
}

// A resource's records: its ByResource partition, and (LEGACY, above) its ByLookup partition of
// lookup items, merged. A lookup item counts only for a record that has no resourcePk; a record that
// has one is listed by its ByResource entry (in the page, or left out by the filter) and only so.
// A record in both sorts as its ByResource entry first (one sort key), so that a page cut between
// the two keeps that one; a page that has both shows the record once, one short. Without the
// legacy part: pageOfListed on the ByResource partition, as above.
async function byResourceWithLegacy(node: Node, query: Omit<Parameters<typeof queryNewestFirst>[0], 'partitionKey' | 'partitions'>, resourceId: string) {
  const partition = byResource(node, resourceId);
  const page = await queryNewestFirst({
    ...query,
    index: 'ByResource',
    partitionKey: 'resourcePk',
    partitions: [partition],
    alsoIn: { index: 'ByLookup', partitionKey: 'lookupPk', sortKey: 'statusSort', partitions: [partition] },
  });
  const inByResource = new Set(page.items.filter((entry) => entry.resourcePk !== undefined).map((entry) => entry.statusSort));
  const keys = [...new Set(page.items.map((entry) => entry.statusSort))].map((statusSort) => keyOfEntry(node, { statusSort }));
  const records = await getAll(node.tables.webhookEvents, keys);
  return {
    items: records.filter((r) => r.resourcePk === undefined || inByResource.has(r.statusSort)).map(toRecord),
    nextCursor: page.nextCursor,
  };
}
