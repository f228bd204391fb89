import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DomainError } from './errors';

// Helpers shared by the DynamoDB adapters of every domain.

// Indexes of the items of a cancelled transaction whose condition failed.
export function failedConditions(e: unknown): number[] | undefined {
  if (!(e instanceof TransactionCanceledException)) return undefined;
  return (e.CancellationReasons ?? []).flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
}

// Pagination cursors are the opaque, base64url-encoded LastEvaluatedKey.
export function encodeCursor(key: Record<string, unknown> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
}

export function decodeCursor(cursor: string | undefined, expectedPk: string): Record<string, unknown> | undefined {
  if (cursor === undefined) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (key && key.pk === expectedPk && typeof key.sk === 'string' && Object.keys(key).length === 2) return key;
  } catch {
    // fall through to the error below
  }
  throw new DomainError('invalid', 'invalid_request', 'cursor: is not a cursor this list returned', [
    { field: 'query.cursor', message: 'is not a cursor this list returned' },
  ]);
}
