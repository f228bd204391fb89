// The one error hierarchy of every API: a DomainError says what went wrong in domain terms, and
// lib/http/problem.ts turns it (or anything else thrown) into the answer, mapping each kind to an
// HTTP status. `upstream`: another system this request needed (a peer, a remote Open Payments
// server) failed; `unavailable`: one is down for now (retry); `not_implemented`: a part of a
// protocol this service does not offer yet.
export type ErrorKind =
  | 'invalid'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'unprocessable'
  | 'too_large'
  | 'unsupported_media'
  | 'too_many_requests'
  | 'upstream'
  | 'not_implemented'
  | 'unavailable';

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

// A refusal of the caller's credentials (401) or of what they allow (403) that says how to get
// others: `challenge` is sent as WWW-Authenticate (GNAP's names the authorization server).
export class AccessRefused extends DomainError {
  constructor(
    kind: 'unauthorized' | 'forbidden',
    code: string,
    message: string,
    readonly challenge: string,
  ) {
    super(kind, code, message);
    this.name = 'AccessRefused';
  }
}

// A method the resource does not serve; `allow` is what it does (HTTP's Allow).
export class MethodNotAllowed extends DomainError {
  constructor(
    message: string,
    readonly allow: string[],
  ) {
    super('method_not_allowed', 'method_not_allowed', message);
    this.name = 'MethodNotAllowed';
  }
}

// Too many requests of one kind from one caller for now: `retryAfterSecs` is when to come back
// (HTTP's Retry-After).
export class TooManyRequests extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSecs: number,
  ) {
    super('too_many_requests', 'too_many_requests', message);
    this.name = 'TooManyRequests';
  }
}
