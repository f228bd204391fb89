import { observed } from '../../lib/tracing';
import { refreshDueRates } from '../../lib/rates';

// Scheduled every minute: keeps pulled rates fresh ahead of their expiry.
export const handler = observed(() => refreshDueRates());
