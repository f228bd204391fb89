import { forEachTenant } from '../../lib/context';
import { expireDueIntents } from '../../lib/payment-intents';
import { observed } from '../../lib/tracing';

// Scheduled every minute: records the expiry of each tenant's open payment intents past expiresAt.
export const handler = observed(() => forEachTenant(expireDueIntents));
