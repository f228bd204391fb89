import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from '../../platform/db';
import type { TransactItem } from '../../platform/tx';
import type { Node } from '../../shared/node';
import { SIGNATURE_TOLERANCE_SECS } from './signature';

// The Admin API's own items: the signatures used. A non-GET signature is accepted once: the first
// use records it, conditionally, until it could no longer pass the timestamp check anyway. The
// record rides along in the request's transaction (lib/platform/tx rideAlong), or is written on its own.
// Its key is the deployment's, not a tenant's: the tenant-id header is not signed, and the
// operator's secret acts for any tenant, so a signature used for one tenant is used for all.
export function usedSignature(node: Node, mac: string, t: number): TransactItem {
  return {
    Put: {
      TableName: node.tables.main,
      Item: { pk: `SIG#${mac}`, sk: 'SIG', ttl: Math.ceil(t) + SIGNATURE_TOLERANCE_SECS + 60 },
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
