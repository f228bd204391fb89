import { errorCatalog } from '../shared/errors';

// The authorization server's errors (GNAP's codes, RFC 9635 section 3.6), and those of the
// interaction with the FSP's consent page (Rafiki's Identity Provider interface).
export const authErrors = errorCatalog({
  // The Admin API's, for the FSP's grants (GET /grants, POST /grants/{id}/revoke).
  grantNotFound: { code: 'grant_not_found', status: 404, title: 'No grant here', detail: (id: string) => `No grant with id ${id}` },
  // GRANT_REQUESTS_PER_MINUTE per client; the answer's Retry-After says when the minute is over.
  tooManyGrantRequests: {
    code: 'too_many_requests',
    status: 429,
    title: 'Too many grant requests from this client this minute (`Retry-After` says when to come back)',
    detail: (detail: string, _retryAfterSecs: number) => detail,
    retryAfterSecs: (_detail: string, retryAfterSecs: number) => retryAfterSecs,
  },
  // A client that may not ask for what it asked (an interactive grant without a wallet address).
  clientRefused: { code: 'invalid_client', status: 400, title: 'The client cannot ask for this grant', detail: (detail: string) => detail },
  invalidContinuation: {
    code: 'invalid_continuation',
    status: 401,
    title: 'No grant to continue at this URL with this token',
    detail: (why = '') => `No grant to continue at this URL with this continuation token${why}`,
  },
  wrongInteractRef: {
    code: 'invalid_continuation',
    status: 404,
    title: 'The interact_ref is not the one given for this grant',
    detail: () => 'This interact_ref is not the one given for this grant',
  },
  // GNAP's code for a refusal of the request itself; the description says which wallet address.
  walletAddressInactive: {
    code: 'request_denied',
    status: 403,
    title: 'The wallet address is inactive',
    detail: (address: string) => `The wallet address ${address} is inactive: the FSP froze it, and no grant is issued for it until it is active again`,
  },
  requestDenied: { code: 'request_denied', status: 401, title: 'The grant is not (or no longer) approved', detail: (detail: string) => detail },
  tooFast: {
    code: 'too_fast',
    status: 400,
    title: 'A continuation sooner than the wait the server gave',
    detail: (waitSecs: number) => `Continue no sooner than ${waitSecs} s after the last request`,
  },
  invalidToken: {
    code: 'invalid_token',
    status: 401,
    title: 'No access token to manage at this URL with this token',
    detail: (detail = 'No access token to manage at this URL with this token') => detail,
  },
  invalidRotation: {
    code: 'invalid_rotation',
    status: 400,
    title: 'The token was revoked or rotated meanwhile',
    detail: () => 'The token was revoked or rotated meanwhile',
  },
  interactionNotOffered: {
    code: 'interaction_not_offered',
    status: 501,
    title: 'No consent page (IDP_CONSENT_URL is unset)',
    detail: () => 'This authorization server has no consent page (IDP_CONSENT_URL is unset), so outgoing-payment grants cannot be approved',
  },
  unknownInteraction: {
    code: 'unknown_interaction',
    status: 404,
    title: 'No interaction with this id and nonce',
    detail: () => 'No interaction with this id and nonce',
  },
  // The start URL, which a browser follows: GNAP answers 400 there.
  unknownInteractionStart: {
    code: 'unknown_interaction',
    status: 400,
    title: 'No interaction with this id and nonce',
    detail: () => 'No interaction with this id and nonce',
  },
  interactionInvalid: {
    code: 'invalid_interaction',
    status: 400,
    title: 'The interaction cannot be decided now (not started, expired or decided)',
    detail: (detail: string) => detail,
  },
  interactionUnauthorized: {
    code: 'invalid_interaction',
    status: 401,
    title: 'The interaction cannot finish now, or the IdP secret is wrong',
    detail: (detail: string) => detail,
  },
  interactionForbidden: {
    code: 'invalid_interaction',
    status: 403,
    title: 'The interaction cannot start: expired or decided',
    detail: (detail: string) => detail,
  },
  // The consent page without the IdP secret, or a browser that did not start the interaction.
  unauthenticated: { code: 'invalid_request', status: 401, title: 'The IdP secret or the session cookie is wrong', detail: (detail: string) => detail },
  userDenied: { code: 'user_denied', status: 401, title: 'The grant was rejected or revoked', detail: () => 'This grant was rejected or revoked' },
});
