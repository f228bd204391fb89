import { IdempotencyAlreadyInProgressError, IdempotencyValidationError } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import { dynamoForLibraries } from '../../platform/db';
import { commonErrors } from '../../shared/errors';
import type { Node } from '../../shared/node';

// Where the Admin API's idempotency keys and stored answers live (Powertools idempotency, on the
// idempotency table): the REST routes' Idempotency-Key (./admin.ts) and /graphql's idempotencyKey
// (lib/api/graphql/idempotent.ts). Made on first use, over the client the process's database is reached by.
let persistenceStore: DynamoDBPersistenceLayer | undefined;
export const idempotencyPersistence = (node: Pick<Node, 'tables'>) =>
  (persistenceStore ??= new DynamoDBPersistenceLayer({ tableName: node.tables.idempotency, awsSdkV3Client: dynamoForLibraries() as never }));

// Stored answers are kept a day, for the REST API and /graphql alike.
export const IDEMPOTENCY_EXPIRES_AFTER_SECONDS = 24 * 3600;

// The idempotency library's refusals, in this service's terms.
export function idempotencyRefusal(e: unknown): unknown {
  if (e instanceof IdempotencyValidationError) return commonErrors.idempotencyKeyReused();
  if (e instanceof IdempotencyAlreadyInProgressError) return commonErrors.idempotencyKeyInProgress();
  return e;
}
