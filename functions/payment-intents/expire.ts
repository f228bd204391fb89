import { expireDueIntents } from '../../lib/payment-intents';

// Scheduled every minute: records the expiry of open payment intents past expiresAt.
export const handler = () => expireDueIntents();
