import type { APIGatewayProxyResult } from 'aws-lambda';
import type { ZodError } from 'zod';
import { unavailableBecause } from '../../platform/aws';
import { logger } from '../../platform/log';
import { commonErrors, DomainError, type ErrorStatus, type FieldError } from '../../shared/errors';
import { HttpError } from './errors';

// RFC 9457 problem details. Every error the functions, the local gateway and the signing proxy
// answer is built here, by problemResponse (what API Gateway answers by itself is fixed text:
// infra/gateway-responses.json).
const TITLE: Record<number, string> = {
  400: 'Invalid request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict',
  405: 'Method not allowed',
  413: 'Payload too large',
  415: 'Unsupported media type',
  422: 'Unprocessable request',
  429: 'Too many requests',
  500: 'Internal error',
  501: 'Not implemented',
  502: 'Bad gateway',
  503: 'Service unavailable',
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

// What an API answers differently from the Admin API, the default.
export interface ProblemApi {
  // Its own status for one of the catalogs' (Open Payments has no 422: it answers 400).
  statuses?: Partial<Record<ErrorStatus, number>>;
  // Members it adds to every problem (Open Payments: the `error` object its clients read).
  members?: (p: Problem) => object;
  // Headers it sends with every answer (CORS).
  headers?: Record<string, string>;
  // The detail of its 500.
  internalDetail?: string;
}

// The answer to anything a request threw: a DomainError is its problem (with Retry-After when it
// says when to come back; an HttpError with its headers: WWW-Authenticate, Allow); an AWS service
// throttling or failing, a 503 with Retry-After; anything else is a bug or an unmapped failure,
// logged and answered 500.
export function problemResponse(thrown: unknown, api: ProblemApi = {}): APIGatewayProxyResult {
  const down = unavailableBecause(thrown);
  if (down !== undefined) {
    logger.warn('A service the request needs is unavailable', { error: thrown });
    thrown = commonErrors.dependencyUnavailable(down);
  }
  let p: Problem;
  if (thrown instanceof DomainError) p = problem(api.statuses?.[thrown.status] ?? thrown.status, thrown.code, thrown.message, thrown.fields);
  else {
    logger.error('Unhandled error', { error: thrown });
    p = problem(500, 'internal_error', api.internalDetail ?? 'The request could not be completed; it is safe to retry');
  }
  return {
    statusCode: p.status,
    headers: {
      ...api.headers,
      'content-type': 'application/problem+json',
      ...(thrown instanceof DomainError && thrown.retryAfterSecs !== undefined && { 'retry-after': String(thrown.retryAfterSecs) }),
      ...(thrown instanceof HttpError && thrown.headers),
    },
    body: JSON.stringify({ ...p, ...api.members?.(p) }),
  };
}

// Zod issues become one entry per bad field, named by its dotted path.
export function fieldErrors(error: ZodError, prefix = ''): FieldError[] {
  return error.issues.flatMap((issue) => {
    const base = [prefix, ...issue.path.map(String)].filter(Boolean).join('.');
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((k) => ({ field: base ? `${base}.${k}` : k, message: 'is not a known field' }));
    }
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    // Without a prefix, the root is the request's body: one not sent is told as such.
    if (!base && missing) return [{ field: '(body)', message: 'is missing: this request takes a JSON body' }];
    return [{ field: base || '(root)', message: missing ? 'is required' : issue.message }];
  });
}
