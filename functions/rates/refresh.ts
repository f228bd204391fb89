import { node } from '../../lib/config';
import { refreshDueRates } from '../../lib/rates';
import { observed } from '../../lib/tracing';

// Scheduled every minute: keeps pulled rates fresh ahead of their expiry.
export const handler = observed(() => refreshDueRates(node));
