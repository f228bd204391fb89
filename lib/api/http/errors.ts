import { DomainError, type ErrorSpec, errorCatalog } from '../../shared/errors';

// The errors of HTTP itself, which no domain knows: a method the path does not serve, a request
// without credentials, a body too large or of another media type. Those that tell the client
// how to go on carry it in headers (Allow, WWW-Authenticate).
export class HttpError extends DomainError {
  constructor(
    spec: ErrorSpec,
    args: unknown[],
    readonly headers: Record<string, string>,
  ) {
    super(spec.status, spec.code, spec.detail(...args));
    this.name = 'HttpError';
  }
}

type HttpSpec = ErrorSpec & { headers?: (...args: never[]) => Record<string, string> };
const make = (spec: HttpSpec, args: unknown[]) => new HttpError(spec, args, spec.headers?.(...(args as never[])) ?? {});

// GNAP's refusals name the authorization server to get a token from.
const gnapChallenge = (_detail: string, asServer: string) => ({ 'www-authenticate': `GNAP as_uri=${asServer}` });

export const httpErrors = errorCatalog(
  {
    malformedJson: { code: 'malformed_json', status: 400, title: 'A body that is not JSON in UTF-8', detail: (detail: string) => detail },
    unauthorized: { code: 'unauthorized', status: 401, title: 'No credentials, or bad ones', detail: (detail: string) => detail },
    consoleUnavailable: {
      code: 'console_unavailable',
      status: 503,
      title: "The console's page could not be built",
      detail: (detail: string) => detail,
    },
    roleForbids: {
      code: 'role_forbidden',
      status: 403,
      title: "The operator's role does not allow this",
      detail: (detail: string) => detail,
    },
    tokenRefused: {
      code: 'unauthorized',
      status: 401,
      title: 'No access token, or one that is not active',
      detail: (detail: string, _asServer: string) => detail,
      headers: gnapChallenge,
    },
    tokenForbids: {
      code: 'forbidden',
      status: 403,
      title: 'The access token does not reach this resource',
      detail: (detail: string, _asServer: string) => detail,
      headers: gnapChallenge,
    },
    methodNotAllowed: {
      code: 'method_not_allowed',
      status: 405,
      title: 'A method this path does not serve (`Allow` lists those it does)',
      detail: (detail: string, _allow: string[]) => detail,
      headers: (_detail: string, allow: string[]) => ({ allow: allow.join(', ') }),
    },
    payloadTooLarge: {
      code: 'payload_too_large',
      status: 413,
      title: 'A body over the limit',
      detail: (detail: string) => detail,
    },
    unsupportedMediaType: {
      code: 'unsupported_media_type',
      status: 415,
      title: 'A body that is not `application/json` in UTF-8',
      detail: (detail: string) => detail,
    },
  },
  make,
);
