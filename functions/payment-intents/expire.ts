import { observed } from '../../lib/tracing';
import { expireDueIntents } from '../../lib/payment-intents';

// Scheduled every minute: records the expiry of open payment intents past expiresAt.
export const handler = observed(() => expireDueIntents());
