import { deployment } from '../../lib/api/context';
import { digestYesterday } from '../../lib/audit';
import { logger } from '../../lib/platform/log';
import { observed } from '../../lib/platform/tracing';

// Scheduled daily: the day before's digest of the audit trail, chained to the one before it.
export const handler = observed(async () => {
  const { key, digest, written } = await digestYesterday(deployment.audit);
  logger.info('audit digest', { key, objects: digest.objects.length, written });
});
