// The one error hierarchy of every API. Each domain declares its errors once, in a catalog
// (lib/<domain>/errors.ts, made with errorCatalog): code, HTTP status, title and what `detail`
// says; a throw site calls an entry (`throw quoteErrors.notFound(id)`) and never spells a code or a
// status. lib/api/http/problem.ts turns a DomainError (or anything else thrown) into the answer.
// Errors of HTTP itself, which carry headers (Allow, WWW-Authenticate, Retry-After), are in
// lib/api/http/errors.ts; a domain error carries none. infra/errors-table.ts lists every catalog.

// What the APIs answer: 422 is a well-formed request that breaks a domain rule (Open Payments,
// which has no 422, answers 400); 502 another system this request needed failed; 503 one is down
// for now (retry); 501 a part of a protocol this service does not offer yet.
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 501 | 502 | 503;

export interface FieldError {
  field: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly status: ErrorStatus,
    readonly code: string,
    message: string,
    readonly fields?: FieldError[],
    // When the request may succeed if sent again (a limit that resets): the answer's Retry-After.
    readonly retryAfterSecs?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }

  // The same error with its fields named where an adapter took them from (`query.cursor`).
  fieldsUnder(prefix: string): DomainError {
    const fields = this.fields?.map((f) => ({ ...f, field: `${prefix}.${f.field}` }));
    return new DomainError(this.status, this.code, this.message, fields, this.retryAfterSecs);
  }
}

// One catalog entry as declared: `detail` takes what it needs; `fields` lists the bad fields of
// a validation error.
export interface ErrorSpec<A extends any[] = any[]> {
  code: string;
  status: ErrorStatus;
  // What the error means, in a few words (the docs' tables and the OpenAPI document). The answer's
  // own `title` is its status's (lib/api/http/problem.ts), as clients were given.
  title: string;
  detail: (...args: A) => string;
  fields?: (...args: A) => FieldError[] | undefined;
  retryAfterSecs?: (...args: A) => number;
}

export interface CatalogEntry {
  code: string;
  status: ErrorStatus;
  title: string;
}

// An entry as thrown: a function that makes its error, which also says its code, status and title.
type ErrorFactory<A extends any[] = any[], E extends DomainError = DomainError> = ((...args: A) => E) & CatalogEntry;

export type Catalog<S extends Record<string, ErrorSpec>, E extends DomainError = DomainError> = {
  [K in keyof S]: ErrorFactory<Parameters<S[K]['detail']>, E>;
};

const plain = (spec: ErrorSpec, args: unknown[]) =>
  new DomainError(spec.status, spec.code, spec.detail(...args), spec.fields?.(...args), spec.retryAfterSecs?.(...args));

// A catalog of errors from its entries; `make` builds an entry's error (lib/api/http/errors.ts makes
// errors that carry headers).
export function errorCatalog<const S extends Record<string, ErrorSpec>, E extends DomainError = DomainError>(
  specs: S,
  make: (spec: S[keyof S], args: unknown[]) => E = plain as never,
): Catalog<S, E> {
  const entries = Object.entries(specs).map(([name, spec]) => {
    const factory = Object.assign((...args: unknown[]) => make(spec as S[keyof S], args), { code: spec.code, status: spec.status, title: spec.title });
    return [name, factory];
  });
  return Object.fromEntries(entries) as Catalog<S, E>;
}

// The errors every domain shares: a bad request (with its bad fields), a path that names nothing,
// a resource in a state that forbids the action, an Idempotency-Key used twice, a bad list cursor.
export const commonErrors = errorCatalog({
  invalidRequest: {
    code: 'invalid_request',
    status: 400,
    title: 'A bad body, query or header: `errors` lists each bad field',
    detail: (detail: string, _fields?: FieldError[]) => detail,
    fields: (_detail: string, fields?: FieldError[]) => fields,
  },
  invalidCursor: {
    code: 'invalid_cursor',
    status: 400,
    title: 'A cursor that no list returned',
    detail: (why: string) => `cursor: ${why}`,
    fields: (why: string) => [{ field: 'cursor', message: why }],
  },
  notFound: { code: 'not_found', status: 404, title: 'Nothing at this path (an id that cannot exist, or a route)', detail: (detail: string) => detail },
  invalidState: {
    code: 'invalid_state',
    status: 409,
    title: 'The resource is in a state that forbids this action',
    detail: (what: string, id: string, state: string, action: string) => `${what} ${id} is ${state}; it cannot be ${action}`,
  },
  idempotencyKeyInProgress: {
    code: 'idempotency_key_in_progress',
    status: 409,
    title: 'A request with this Idempotency-Key is still running',
    detail: () => 'A request with this Idempotency-Key is still in progress; retry shortly',
  },
  idempotencyKeyReused: {
    code: 'idempotency_key_reused',
    status: 422,
    title: 'This Idempotency-Key was used with another request',
    detail: () => 'This Idempotency-Key was used with a different request body',
  },
  dependencyUnavailable: {
    code: 'dependency_unavailable',
    status: 503,
    title: 'A service the request needs (the database, a queue, the secrets store) throttled or failed; retry shortly',
    detail: (what: string) =>
      `A service this request needs is unavailable for now (${what}); retry shortly, with the same Idempotency-Key if the request had one`,
    retryAfterSecs: () => 1,
  },
  readThrottled: {
    code: 'read_throttled',
    status: 503,
    title: 'The database throttled a read; retry shortly',
    detail: (unread: number, attempts: number) => `${unread} items stayed unread after ${attempts} attempts (throttled); retry shortly`,
  },
});

// A validation error, one entry per bad field.
export const invalidFields = (errors: FieldError[]) => commonErrors.invalidRequest(errors.map((e) => `${e.field} ${e.message}`).join('; '), errors);
export const invalidField = (field: string, message: string) => invalidFields([{ field, message }]);
