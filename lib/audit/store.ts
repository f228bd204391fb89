import { PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from '../platform/db';
import { type Lookup, type Page, queryNewestFirst, scoped, timeRange } from '../platform/store';
import type { TransactItem } from '../platform/tx';
import type { Node } from '../shared/node';
import { timeOfAuditEventId } from './ids';
import type { AuditEvent, AuditEventsQuery } from './schemas';

// A tenant's audit events: one partition of the main table, newest first by "<at>#<id>", kept as
// long as the ledger (no TTL). Operators act at a person's pace, so one partition takes them all;
// a time window is a key condition, the other filters read the window on until a page is full.
const partition = (node: Node) => scoped(node, 'AUDIT');

export function auditItem(node: Node, event: AuditEvent): TransactItem {
  return {
    Put: {
      TableName: node.tables.main,
      Item: { pk: partition(node), sk: `${event.at}#${event.id}`, ...event },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export async function saveAuditEvent(node: Node, event: AuditEvent): Promise<void> {
  const item = auditItem(node, event);
  await db().send(new PutCommand(item.Put as PutCommandInput));
}

const FILTERS = {
  actor: { path: '#actor.#name', names: { '#actor': 'actor', '#name': 'name' } },
  resourceId: { path: '#resource.#id', names: { '#resource': 'resource', '#id': 'id' } },
  action: { path: '#action', names: { '#action': 'action' } },
  outcome: { path: '#outcome', names: { '#outcome': 'outcome' } },
} as const;

export async function listAuditEvents(node: Node, q: AuditEventsQuery): Promise<Page<AuditEvent>> {
  const given = (Object.keys(FILTERS) as (keyof typeof FILTERS)[]).filter((k) => q[k] !== undefined);
  const page = await queryNewestFirst({
    table: node.tables.main,
    partitionKey: 'pk',
    sortKey: 'sk',
    partitions: [partition(node)],
    limit: q.limit,
    cursor: q.cursor,
    ...timeRange(q),
    ...(given.length && {
      filter: {
        expression: given.map((k) => `${FILTERS[k].path} = :${k}`).join(' AND '),
        names: Object.assign({}, ...given.map((k) => FILTERS[k].names)),
        values: Object.fromEntries(given.map((k) => [`:${k}`, q[k]])),
      },
    }),
  });
  return { items: page.items.map(toEvent), nextCursor: page.nextCursor };
}

// An event by its id: the time its id carries is its key's (lib/audit/ids.ts).
export function auditEventLookup(node: Node, id: string): Lookup<AuditEvent> | undefined {
  const at = timeOfAuditEventId(id);
  return at === undefined ? undefined : { table: node.tables.main, key: { pk: partition(node), sk: `${at}#${id}` }, read: toEvent };
}

const toEvent = ({ pk, sk, status, ...event }: Record<string, any>): AuditEvent => ({ ...event, status: Number(status) }) as AuditEvent;
