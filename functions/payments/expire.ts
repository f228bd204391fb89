import { forEachTenant } from '../../lib/api/context';
import { cancelExpiredFundings } from '../../lib/payments';
import { observed } from '../../lib/platform/tracing';

// Scheduled every minute: cancels each tenant's payments left in funding past their quote's expiry.
// Answers how many it cancelled, over the tenants.
export const handler = observed(async () => (await forEachTenant(cancelExpiredFundings)).reduce((a, b) => a + b, 0));
