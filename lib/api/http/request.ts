import type { APIGatewayProxyEvent } from 'aws-lambda';
import { httpErrors } from './errors';
import { MAX_BODY_BYTES } from './schemas';

// What every API reads of a REST API's Lambda proxy event the same way: its headers and its body.

// Header names in lower case: a REST API passes them as the client wrote them, so "Signature" and
// "signature" can be two entries. Of single values (`headers`) the last one is kept, as API
// Gateway does for a repeated name; lists (`multiValueHeaders`) are joined, so every value sent
// is counted.
export function lowerCaseHeaders(headers: Record<string, string | undefined> | null | undefined): Record<string, string>;
export function lowerCaseHeaders(headers: Record<string, string[] | undefined> | null | undefined): Record<string, string[]>;
export function lowerCaseHeaders(headers: Record<string, string | string[] | undefined> | null | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = Array.isArray(value) ? [...((out[key] as string[] | undefined) ?? []), ...value] : value;
  }
  return out;
}

// The body's bytes (a REST API passes a binary body base64-encoded), refused with 413 above `max`.
export function requestBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>, max = MAX_BODY_BYTES, limitIs = 'the limit is'): Buffer {
  const body = event.body ? Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8') : Buffer.alloc(0);
  if (body.length > max) throw httpErrors.payloadTooLarge(`The body is ${body.length} bytes; ${limitIs} ${max}`);
  return body;
}
