import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ZodError } from 'zod';
import { DomainError, type ErrorKind, type FieldError } from '../errors';

// RFC 9457 problem details. Every error the API returns is built here.
const STATUS: Record<ErrorKind, number> = {
  invalid: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  unsupported_media: 415,
  unprocessable: 422,
  upstream: 502,
};

const TITLE: Record<number, string> = {
  400: 'Invalid request',
  401: 'Unauthorized',
  404: 'Not found',
  409: 'Conflict',
  405: 'Method not allowed',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable request',
  429: 'Too many requests',
  500: 'Internal error',
  502: 'Bad gateway',
  504: 'Gateway timeout',
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
}

export function problem(status: number, code: string, detail: string, errors?: FieldError[]): Problem {
  return { type: `urn:payment-service:problem:${code}`, title: TITLE[status] ?? 'Error', status, detail, code, ...(errors && { errors }) };
}

export function problemResponse(p: Problem): APIGatewayProxyResult {
  return {
    statusCode: p.status,
    headers: { 'content-type': 'application/problem+json' },
    body: JSON.stringify(p),
  };
}

// `statuses`: an API's own status for a kind (Open Payments has no 422: it answers 400).
export function fromDomainError(e: DomainError, statuses: Partial<Record<ErrorKind, number>> = {}): Problem {
  return problem(statuses[e.kind] ?? STATUS[e.kind], e.code, e.message, e.fields);
}

// Zod issues become one entry per bad field, named by its dotted path.
export function fieldErrors(error: ZodError, prefix = ''): FieldError[] {
  return error.issues.flatMap((issue) => {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ field: base ? `${base}.${k}` : k, message: 'is not a known field' }));
    }
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    return [{ field: base || '(root)', message: missing ? 'is required' : issue.message }];
  });
}

export function validationError(errors: FieldError[]): DomainError {
  const detail = errors.map((e) => `${e.field} ${e.message}`).join('; ');
  return new DomainError('invalid', 'invalid_request', detail, errors);
}
