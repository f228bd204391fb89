import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db } from '../aws';
import { config } from '../config';
import { SIGNATURE_TOLERANCE_SECS } from './signature';

// A non-GET signature is accepted once: the first use records it, conditionally, until it could
// no longer pass the timestamp check anyway. Returns false when it was used before.
export async function consumeSignature(v1: string, t: number): Promise<boolean> {
  try {
    await db.send(
      new PutCommand({
        TableName: config.MAIN_TABLE,
        Item: { pk: `SIG#${v1}`, sk: 'SIG', ttl: t + SIGNATURE_TOLERANCE_SECS + 60 },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}
