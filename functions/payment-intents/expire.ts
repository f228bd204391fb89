import { forEachTenant } from '../../lib/api/context';
import { expireDueIntents } from '../../lib/payment-intents';
import { observed } from '../../lib/platform/tracing';

// Scheduled every minute: records the expiry of each tenant's open payment intents past expiresAt.
// Answers how many it expired, over the tenants.
export const handler = observed(async () => (await forEachTenant(expireDueIntents)).reduce((a, b) => a + b, 0));
