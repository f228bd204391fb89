import { forEachTenant } from '../../lib/api/context';
import { observed } from '../../lib/platform/tracing';
import { refreshDueRates } from '../../lib/rates';

// Scheduled every minute: keeps each tenant's pulled rates fresh ahead of their expiry.
// Answers what it did, summed over the tenants.
export const handler = observed(async () =>
  (await forEachTenant(refreshDueRates)).reduce((t, s) => ({
    refreshed: t.refreshed + s.refreshed,
    failed: t.failed + s.failed,
    skipped: t.skipped + s.skipped,
  })),
);
