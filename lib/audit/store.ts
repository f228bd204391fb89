import { PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AttributeValue, DynamoDBRecord } from 'aws-lambda';
import { CHANGED_BY, db } from '../platform/db';
import { uuidFrom } from '../platform/ids';
import { scoped, tenantOfKey } from '../platform/store';
import { type Author, auditedRecord, authorOfStamp } from '../platform/tx';
import { GUARD_ID, GUARD_ONLY } from '../shared/audited';
import type { Node } from '../shared/node';
import type { AuditEvent } from './schemas';

// The audit trail's side of the main table: what its stream carries to the write-once store
// (./archive.ts). A change of a resource's record (its item: "<KIND>#<id>", sort key <KIND>; or a
// record in another's partition, a wallet address's key: lib/shared/audited AUDITED_PARTS) with
// the author its commit stamped on it (lib/platform/tx CHANGED_BY), and an operator's action that
// changed nothing, written here alone as an item that the stream carries and that expires.
const UNCHANGED_KEPT_SECS = 7 * 24 * 3600; // the stream keeps a record 24 h: this outlives it
const UNCHANGED = 'audit'; // the attribute holding such an action's event, as JSON

export async function saveAuditEvent(node: Node, event: AuditEvent): Promise<void> {
  const Item = {
    pk: scoped(node, 'AUDIT'),
    sk: `${event.at}#${event.id}`,
    [UNCHANGED]: JSON.stringify(event),
    ttl: Math.floor(Date.now() / 1000) + UNCHANGED_KEPT_SECS,
  };
  await db().send(new PutCommand({ TableName: node.tables.main, Item, ConditionExpression: 'attribute_not_exists(pk)' } as PutCommandInput));
}

// What a record holds for its indexes, expiry and replay guard, not for its meaning.
const NOT_CHANGES = new Set(['pk', 'sk', CHANGED_BY, GUARD_ID, 'ttl', 'listPk', 'listSk', 'list2Pk', 'openPk', 'openExpiresAt', 'leaseHolder', 'leaseUntil']);
// A field that may hold a secret (a peer's tokens): its change is recorded, its values are not.
const SECRET = /secret|token|password/i;
const REDACTED = '[redacted]';

type Image = Record<string, AttributeValue>;

// The audit events of a batch of the main table's stream (as Lambda hands it), oldest first.
export function auditEventsOf(records: DynamoDBRecord[]): AuditEvent[] {
  return records.flatMap((r) => {
    const event = eventOf(r);
    return event ? [event] : [];
  });
}

function eventOf(r: DynamoDBRecord): AuditEvent | undefined {
  const newImage = r.dynamodb?.NewImage as Image | undefined;
  const oldImage = r.dynamodb?.OldImage as Image | undefined;
  if (newImage?.[UNCHANGED]?.S && r.eventName === 'INSERT') return JSON.parse(newImage[UNCHANGED].S) as AuditEvent;
  const image = newImage ?? oldImage;
  if (image?.[GUARD_ONLY]) return undefined;
  const pk = image?.pk?.S;
  const sk = image?.sk?.S;
  const record = auditedRecord(pk, sk);
  if (!pk || !record) return undefined;
  // Expiry (DynamoDB's TTL deleting the item) changes nothing the record said: not an action.
  if (r.eventName === 'REMOVE' && r.userIdentity?.type === 'Service') return undefined;
  const before = oldImage ? plain(oldImage) : undefined;
  const after = newImage ? plain(newImage) : undefined;
  const changes = changed(before, after);
  if (!Object.keys(changes).length) return undefined;
  // A write that stamped nothing (a delete, which has no new image to stamp) is not attributed.
  const stamp = newImage?.[CHANGED_BY]?.S;
  const fresh = stamp && stamp !== oldImage?.[CHANGED_BY]?.S ? authorOfStamp(stamp) : undefined;
  const author: Author = fresh ?? { actor: { kind: 'service', name: 'unattributed' }, action: r.eventName === 'REMOVE' ? 'delete' : 'write' };
  const id = record.id({ ...before, ...after });
  return {
    // A stream record's id as a UUID: one event for one record, however often it is read.
    id: uuidFrom(r.eventID ?? `${pk}#${r.dynamodb?.SequenceNumber}`),
    at: fresh?.at ?? new Date((r.dynamodb?.ApproximateCreationDateTime ?? Date.now() / 1000) * 1000).toISOString(),
    actor: author.actor as AuditEvent['actor'],
    action: author.action,
    operationId: author.operationId ?? author.action,
    resource: { type: record.kind, id },
    tenant: tenantOfKey(pk),
    outcome: 'succeeded',
    ...(author.status !== undefined && { status: author.status }),
    ...(author.requestId && { requestId: author.requestId }),
    ...(author.reason && { reason: author.reason }),
    changes,
  };
}

function changed(before: Record<string, unknown> = {}, after: Record<string, unknown> = {}): NonNullable<AuditEvent['changes']> {
  const out: NonNullable<AuditEvent['changes']> = {};
  for (const field of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (NOT_CHANGES.has(field)) continue;
    const [b, a] = [before[field], after[field]];
    // (Most fields are strings: equal ones need no JSON of their own.)
    if (b === a || (typeof b === 'object' && typeof a === 'object' && JSON.stringify(b) === JSON.stringify(a))) continue;
    out[field] = SECRET.test(field)
      ? { ...(b !== undefined && { before: REDACTED }), ...(a !== undefined && { after: REDACTED }) }
      : { ...(b !== undefined && { before: b }), ...(a !== undefined && { after: a }) };
  }
  return out;
}

// An image as JSON can hold it: numbers as their text (exact, as the ledger's are), sets as lists,
// bytes as base64.
const plain = (image: Image): Record<string, unknown> => Object.fromEntries(Object.entries(image).map(([k, v]) => [k, attributeValue(v)]));
function attributeValue(v: AttributeValue): unknown {
  if (v.S !== undefined || v.N !== undefined) return v.S ?? v.N;
  if (v.BOOL !== undefined) return v.BOOL;
  if (v.NULL) return null;
  if (v.M) return plain(v.M as Image);
  if (v.L) return v.L.map((x) => attributeValue(x as AttributeValue));
  if (v.B !== undefined) return Buffer.from(v.B as string | Uint8Array).toString('base64');
  return v.SS ?? v.NS ?? v.BS?.map((b) => Buffer.from(b as string | Uint8Array).toString('base64'));
}
