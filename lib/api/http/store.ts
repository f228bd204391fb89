import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from '../../platform/db';
import { recordKey } from '../../platform/store';
import { heldRiderRefusalAt, type TransactItem } from '../../platform/tx';
import { type AuditedKind, GUARD_ONLY } from '../../shared/audited';
import type { Node } from '../../shared/node';
import { SIGNATURE_TOLERANCE_SECS } from './signature';

// The Admin API's own items: the signatures used. A non-GET signature is accepted once: the first
// use records it, conditionally, until it could no longer pass the timestamp check anyway. The
// record rides along in the request's transaction (lib/platform/tx rideAlong), or is written on its
// own. A route that creates a record (its `creates`) records it in that record's place, under the
// first id the request draws (derived from the signature, lib/platform/ids.ts): the create's own
// Put then holds it, at no item of its own (a record named otherwise, a payment by its quote, keeps
// that id on itself: lib/platform/tx); a request that creates nothing leaves an item there
// that is no record (GUARD_ONLY), so that a replay is refused whether or not it would create now.
// SIG#<mac> is the deployment's, a record's place its tenant's: either is enough, as v3 signs the
// tenant-id (a signature is good for the one tenant it names).
export function usedSignature(node: Node, mac: string, t: number, created?: { kind: AuditedKind; id: string }): TransactItem {
  const ttl = Math.ceil(t) + SIGNATURE_TOLERANCE_SECS + 60;
  return {
    Put: {
      TableName: node.tables.main,
      Item: created ? { ...recordKey(node, created.kind, created.id), [GUARD_ONLY]: true, ttl } : { pk: `SIG#${mac}`, sk: 'SIG', ttl },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

// Returns false when the signature was used before.
export async function recordSignature(record: TransactItem): Promise<boolean> {
  try {
    await db().send(new PutCommand(record.Put as PutCommandInput));
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

// The refusal of this scope's signed request that a created record holds, if that request made it:
// for an Idempotency-Key's replay of a create whose record is named by what it is for, not drawn (a
// payment, by its quote), which keeps its request's guard (GUARD_ID) instead of sitting in its place.
export const createdReplayRefusal = (node: Node, kind: AuditedKind, id: string) => heldRiderRefusalAt(node, recordKey(node, kind, id));
