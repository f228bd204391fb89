import { randomUUID } from 'node:crypto';
import type { DynamoDBRecord } from 'aws-lambda';
import { logger } from '../platform/log';
import type { Bucket } from '../platform/s3';
import { DomainError } from '../shared/errors';
import type { Node } from '../shared/node';
import type { Operator } from '../shared/operators';
import { archiveEvents, digestDay, listArchived } from './archive';
import { auditErrors } from './errors';
import type { AuditEvent, AuditEventsQuery } from './schemas';
import { auditEventsOf, saveAuditEvent } from './store';

// The audit trail: every change of a resource, from the main table's stream into the write-once
// store, and each operator action that changed nothing (docs/audit.md).

// An operator's action: who, which route, on what.
export interface Action {
  actor: Operator;
  action: string; // "<METHOD> <path template>"
  operationId: string;
  resource: { type: string; id: string | null };
}

// The audit event of an operator's action that changed nothing (refused, failed, or a no-op),
// written alone: the stream takes it to the store as it takes a change's.
export const recordUnchanged = (node: Node, a: Action, status: number, code?: string, requestId?: string): Promise<void> =>
  saveAuditEvent(node, {
    id: randomUUID(),
    at: new Date().toISOString(),
    actor: { kind: 'operator', name: a.actor.name, role: a.actor.role },
    action: a.action,
    operationId: a.operationId,
    resource: a.resource,
    tenant: node.tenant.id,
    outcome: status < 400 ? 'succeeded' : 'refused',
    status,
    ...(code !== undefined && { code }),
    ...(requestId && { requestId }),
  });

// A batch of the main table's stream: its audit events, into the store.
export const recordChanges = (bucket: Bucket, records: DynamoDBRecord[]) => archiveEvents(bucket, auditEventsOf(records));

// (The store failing, or not answering in time, is a 503 the caller may retry, not a 500; a
// refusal of the query itself, such as a cursor this list never returned, stays what it is.)
export const listAuditEvents = (node: Node, q: AuditEventsQuery) =>
  listArchived(node.audit, node.tenant.id, q).catch((error: Error) => {
    if (error instanceof DomainError) throw error;
    logger.error('The audit store could not be read', { error: error.message });
    throw auditErrors.storeUnavailable();
  });

// The daily digest: the day before `now`'s (UTC).
export const digestYesterday = (bucket: Bucket, now = Date.now()) => digestDay(bucket, new Date(now - 86_400_000).toISOString().slice(0, 10));

export type { AuditEvent };
