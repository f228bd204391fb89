import type { DynamoDBStreamEvent } from 'aws-lambda';
import { deployment } from '../../lib/api/context';
import { digestYesterday, recordChanges } from '../../lib/audit';
import { logger } from '../../lib/platform/log';
import { observed } from '../../lib/platform/tracing';

// The audit trail's function, on two triggers. The main table's stream (its changed records, of
// every tenant, and operators' actions that changed nothing): their events, into the write-once
// store; a failed batch is retried whole, and writes the same objects again (lib/audit/archive.ts).
// The daily schedule: the day before's digest, chained to the one before it.
export const handler = observed(async (event: DynamoDBStreamEvent | { source?: string }) => {
  if ('Records' in event) return recordChanges(deployment.audit, event.Records);
  if (event.source !== 'aws.events') throw new Error(`auditTrail takes its stream or its schedule, not ${JSON.stringify(event).slice(0, 200)}`);
  const { key, digest, written } = await digestYesterday(deployment.audit);
  logger.info('audit digest', { key, objects: digest.objects.length, written });
});
