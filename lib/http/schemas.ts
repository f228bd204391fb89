import * as z from 'zod';

// Request shapes every route family shares (the values in them are lib/values.ts).

export const idParams = z.object({ id: z.uuid() });

// A page size: plain decimal digits only (not "0x10", "1e1" or " 5"), 1 to 100.
export const pageLimit = z
  .string()
  .regex(/^\d{1,3}$/, 'must be a whole number from 1 to 100, in decimal digits')
  .transform(Number)
  .pipe(z.number().min(1, 'must be from 1 to 100').max(100, 'must be from 1 to 100'))
  .default(20);

export const pageQuery = z.strictObject({
  limit: pageLimit,
  cursor: z.string().optional(), // checked where it is decoded (lib/store.ts): 400 invalid_cursor
});

export const page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), nextCursor: z.string().nullable() });

// The largest request body either API takes (413 payload_too_large above it).
export const MAX_BODY_BYTES = 64 * 1024;

// Header names in lower case: a REST API passes them as the client wrote them.
export const lowerCaseHeaders = (headers: Record<string, string | undefined> | null | undefined) =>
  Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));

// The token of an Authorization header by RFC 6750 section 2.1: credentials = "Bearer" 1*SP
// b64token. The scheme is case-insensitive (RFC 9110 section 11.1) and one or more spaces may follow
// it; no tab, no other characters, and "=" only at the end.
const BEARER = /^bearer +([A-Za-z0-9._~+/-]+=*)$/i;
export const bearerToken = (header: string | undefined) => (header === undefined ? undefined : BEARER.exec(header)?.[1]);
