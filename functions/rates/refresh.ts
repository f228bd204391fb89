import { forEachTenant } from '../../lib/context';
import { refreshDueRates } from '../../lib/rates';
import { observed } from '../../lib/tracing';

// Scheduled every minute: keeps each tenant's pulled rates fresh ahead of their expiry.
// Answers what it did, summed over the tenants.
export const handler = observed(async () =>
  (await forEachTenant(refreshDueRates)).reduce((t, s) => ({
    refreshed: t.refreshed + s.refreshed,
    failed: t.failed + s.failed,
    skipped: t.skipped + s.skipped,
  })),
);
