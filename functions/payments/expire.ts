import { forEachTenant } from '../../lib/api/context';
import { cancelExpiredFundings } from '../../lib/payments';
import { sweepForwards } from '../../lib/payments/forwarded';
import { observed } from '../../lib/platform/tracing';

// Scheduled every minute: cancels each tenant's payments left in funding past their quote's expiry,
// and books the packets it forwarded that a crash left pending once they expired (as not paid, for
// reconciliation). Answers how many of both, over the tenants.
export const handler = observed(async () =>
  (await forEachTenant(async (node) => (await cancelExpiredFundings(node)) + (await sweepForwards(node)))).reduce((a, b) => a + b, 0),
);
