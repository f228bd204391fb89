import { config } from './config';
import { DomainError } from './errors';

// Things the payment resources share: the Open Payments resource server's URL (WALLET_ADDRESS_URL's
// origin), the public URL of a payment intent (Open Payments' incoming payment), which quotes
// accept as `receiver` beside the bare id, and state conflicts.
export const resourceServerUrl = () => new URL(config.WALLET_ADDRESS_URL).origin;
export const intentUrl = (id: string) => `${resourceServerUrl()}/incoming-payments/${id}`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// A quote's receiver: a payment intent of this node (its id, or its URL), or an incoming payment
// on another node (any other http(s) URL), for which this answers undefined.
export function localIntentId(receiver: string): string | undefined {
  if (UUID.test(receiver)) return receiver.toLowerCase();
  const prefix = `${resourceServerUrl()}/incoming-payments/`.toLowerCase();
  const lower = receiver.toLowerCase();
  if (lower.startsWith(prefix) && UUID.test(lower.slice(prefix.length))) return lower.slice(prefix.length);
  const url = URL.canParse(receiver) ? new URL(receiver) : undefined;
  if ((url?.protocol === 'https:' || url?.protocol === 'http:') && !lower.startsWith(prefix)) return undefined;
  const message = `must be a payment intent id, its URL (${prefix}<id>), or the URL of an incoming payment on another node`;
  throw new DomainError('invalid', 'invalid_request', `receiver ${message}`, [{ field: 'receiver', message }]);
}

export const conflictState = (what: string, id: string, state: string, action: string) =>
  new DomainError('conflict', 'invalid_state', `${what} ${id} is ${state}; it cannot be ${action}`);
