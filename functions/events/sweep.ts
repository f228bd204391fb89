import { sweepOutbox } from '../../lib/events';

// Scheduled every minute: sends outbox entries that a crash left behind.
export const handler = () => sweepOutbox();
