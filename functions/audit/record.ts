import type { DynamoDBStreamEvent } from 'aws-lambda';
import { deployment } from '../../lib/api/context';
import { recordChanges } from '../../lib/audit';
import { observed } from '../../lib/platform/tracing';

// Stream-triggered (the main table's changed records, of every tenant, and operators' actions that
// changed nothing): their audit events, into the write-once store. A failed batch is retried whole,
// and writes the same objects again (lib/audit/archive.ts).
export const handler = observed((event: DynamoDBStreamEvent) => recordChanges(deployment.audit, event.Records));
