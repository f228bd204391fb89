import { node } from '../../lib/config';
import { expireDueIntents } from '../../lib/payment-intents';
import { observed } from '../../lib/tracing';

// Scheduled every minute: records the expiry of open payment intents past expiresAt.
export const handler = observed(() => expireDueIntents(node));
