import { refreshDueRates } from '../../lib/rates';

// Scheduled every minute: keeps pulled rates fresh ahead of their expiry.
export const handler = () => refreshDueRates();
