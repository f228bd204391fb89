import { config } from './config';
import { DomainError } from './errors';

// Things the payment resources share: the Open Payments resource server's URL (WALLET_ADDRESS_URL's
// origin), the public URL of a payment intent (Open Payments' incoming payment), which quotes
// accept as `receiver` beside the bare id, and state conflicts.
export const resourceServerUrl = () => new URL(config.WALLET_ADDRESS_URL).origin;
export const intentUrl = (id: string) => `${resourceServerUrl()}/incoming-payments/${id}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function intentIdFromReceiver(receiver: string): string {
  if (UUID.test(receiver)) return receiver.toLowerCase();
  const prefix = `${new URL(config.WALLET_ADDRESS_URL).origin}/incoming-payments/`.toLowerCase();
  const lower = receiver.toLowerCase();
  if (lower.startsWith(prefix) && UUID.test(lower.slice(prefix.length))) return lower.slice(prefix.length);
  throw new DomainError('invalid', 'invalid_request', `receiver must be a payment intent id or its URL (${prefix}<id>)`, [
    { field: 'receiver', message: `must be a payment intent id or its URL (${prefix}<id>)` },
  ]);
}

export const conflictState = (what: string, id: string, state: string, action: string) =>
  new DomainError('conflict', 'invalid_state', `${what} ${id} is ${state}; it cannot be ${action}`);
