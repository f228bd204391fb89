import { idOfKey } from '../platform/store';
import type { TransactItem, Write } from '../platform/tx';
import type { Node } from '../shared/node';
import type { Operator } from '../shared/operators';
import { auditEventId } from './ids';
import type { AuditEvent } from './schemas';
import { auditItem, listAuditEvents, saveAuditEvent } from './store';

export { auditEventLookup } from './store';
export { listAuditEvents };

// An operator's action: who, which route, on what. (A create's resource id is known only once its
// transaction is made: see createdId.)
export interface Action {
  actor: Operator;
  action: string; // "<METHOD> <path template>"
  operationId: string;
  resource: { type: string; id: string | null };
}

const eventOf = (node: Node, a: Action, outcome: AuditEvent['outcome'], status: number, code?: string, now = new Date()): AuditEvent => ({
  id: auditEventId(now),
  at: now.toISOString(),
  actor: { kind: 'operator', name: a.actor.name, role: a.actor.role },
  action: a.action,
  operationId: a.operationId,
  resource: a.resource,
  tenant: node.tenant.id,
  outcome,
  status,
  ...(code !== undefined && { code }),
});

// The audit event of an action that succeeds, as a write of the transaction that makes its change.
export const succeededItem = (node: Node, a: Action, status: number): TransactItem => auditItem(node, eventOf(node, a, 'succeeded', status));

// The audit event of an action that changed nothing (refused, failed, or a no-op), written alone.
export const recordUnchanged = (node: Node, a: Action, status: number, code?: string): Promise<void> =>
  saveAuditEvent(node, eventOf(node, a, status < 400 ? 'succeeded' : 'refused', status, code));

// The id of what a transaction creates: the first record it puts under its own id ("ASSET#<id>",
// scoped or not, holding `id`), as every create's record is; a lookup item beside it (an asset's
// by its code) is keyed otherwise.
export function createdId(writes: Write[]): string | undefined {
  for (const w of writes) {
    const item = w.Put?.Item;
    if (typeof item?.id === 'string' && typeof item.pk === 'string' && idOfKey(item.pk) === item.id) return item.id;
  }
  return undefined;
}
