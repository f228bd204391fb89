import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, type PutCommandInput } from '@aws-sdk/lib-dynamodb';
import { config } from '../config';
import { db } from '../db';
import type { TransactItem } from '../table';
import { SIGNATURE_TOLERANCE_SECS } from './signature';

// A non-GET signature is accepted once: the first use records it, conditionally, until it could
// no longer pass the timestamp check anyway. The record can be written on its own
// (consumeSignature) or ride along in the request's transaction (guardItem).
export function guardItem(mac: string, t: number): TransactItem {
  return {
    Put: {
      TableName: config.MAIN_TABLE,
      Item: { pk: `SIG#${mac}`, sk: 'SIG', ttl: Math.ceil(t) + SIGNATURE_TOLERANCE_SECS + 60 },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

// Returns false when the signature was used before.
export async function consumeSignature(guard: TransactItem): Promise<boolean> {
  try {
    await db().send(new PutCommand(guard.Put as PutCommandInput));
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}
