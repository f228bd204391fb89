// Domain errors say what went wrong in domain terms; lib/http maps each kind to an HTTP status.
// `upstream`: another system this request needed (a peer, a remote Open Payments server) failed.
export type ErrorKind = 'invalid' | 'unauthorized' | 'not_found' | 'conflict' | 'unprocessable' | 'too_large' | 'unsupported_media' | 'upstream';

export interface FieldError {
  field: string;
  message: string;
}

// A write that would take a ledger balance past the 38 digits a DynamoDB number holds.
export const balanceTooLarge = () =>
  new DomainError(
    'unprocessable',
    'balance_too_large',
    'This would take a balance past the 38 digits the ledger holds (at its scale of 20); use a smaller amount',
  );

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorKind,
    readonly code: string,
    message: string,
    readonly fields?: FieldError[],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const notFound = (what: string, id: string) => new DomainError('not_found', `${what.replace(/ /g, '_')}_not_found`, `No ${what} with id ${id}`);

export const invalidField = (field: string, message: string) => new DomainError('invalid', 'invalid_request', `${field}: ${message}`, [{ field, message }]);

// An Open Payments (or GNAP) error: its HTTP status and the spec's error code, which the official
// client reads from the body's `error` object (lib/http/open-payments.ts shapes it).
export class OpenPaymentsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'OpenPaymentsError';
  }
}
