import { errorCatalog } from '../shared/errors';

// Open Payments' errors: a client that cannot be verified (GNAP's invalid_client), the resource
// server's own errors (an access token's refusals are HTTP's: lib/api/http/errors.ts).
export const openPaymentsErrors = errorCatalog({
  invalidClient: { code: 'invalid_client', status: 401, title: "The client's signature or key could not be verified", detail: (detail: string) => detail },
  invalidSignature: { code: 'invalid_signature', status: 401, title: "The request's signature does not verify", detail: (reason: string) => reason },
  authServerUnavailable: {
    code: 'authorization_server_unavailable',
    status: 503,
    title: 'The authorization server could not be asked about the token; retry',
    detail: () => 'The authorization server could not be asked about the token; retry shortly',
  },
});
