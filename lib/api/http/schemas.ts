// The largest request body either API takes (413 payload_too_large above it).
export const MAX_BODY_BYTES = 64 * 1024;

// The token of an Authorization header by RFC 6750 section 2.1: credentials = "Bearer" 1*SP
// b64token. The scheme is case-insensitive (RFC 9110 section 11.1) and one or more spaces may follow
// it; no tab, no other characters, and "=" only at the end.
const BEARER = /^bearer +([A-Za-z0-9._~+/-]+=*)$/i;
export const bearerToken = (header: string | undefined) => (header === undefined ? undefined : BEARER.exec(header)?.[1]);
