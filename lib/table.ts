import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, type QueryCommandInput, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db } from './db';
import { DomainError } from './errors';

// Helpers shared by the DynamoDB adapters of every domain.

// One write of a transaction; domains hand these to lib/tx commit() to write together.
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

// Indexes of the items of a cancelled transaction whose condition failed.
export function failedConditions(e: unknown): number[] | undefined {
  if (!(e instanceof TransactionCanceledException)) return undefined;
  return (e.CancellationReasons ?? []).flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
}

// Pagination cursors are the opaque, base64url-encoded LastEvaluatedKey.
export function encodeCursor(key: Record<string, unknown> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
}

// A cursor is accepted only if it decodes to a key that `valid` recognises as this list's.
export function decodeCursorWith(cursor: string | undefined, valid: (key: Record<string, unknown>) => boolean): Record<string, unknown> | undefined {
  if (cursor === undefined) return undefined;
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (key && typeof key === 'object' && valid(key)) return key;
  } catch {
    // fall through to the error below
  }
  throw new DomainError('invalid', 'invalid_request', 'cursor: is not a cursor this list returned', [
    { field: 'query.cursor', message: 'is not a cursor this list returned' },
  ]);
}

export const nonEmpty = (v: unknown) => typeof v === 'string' && v.length > 0;

export const decodeCursor = (cursor: string | undefined, expectedPk: string) =>
  decodeCursorWith(cursor, (k) => k.pk === expectedPk && nonEmpty(k.sk) && Object.keys(k).length === 2);

// Every item a query matches, following LastEvaluatedKey through all pages.
export async function queryAll(input: QueryCommandInput): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const res = await db().send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(res.Items ?? []));
    ExclusiveStartKey = res.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}
