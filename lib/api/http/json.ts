import { commonErrors } from '../../shared/errors';
import { httpErrors } from './errors';

// What every JSON API refuses in a parsed body before its schema sees it: a key or string with an
// unpaired UTF-16 surrogate ("\ud800"). JSON.parse takes one from a \u escape, but it is not text:
// no UTF-8 can carry it, and it would be stored and published (webhooks, the Admin API) as it is.
export function refuseLoneSurrogates(json: unknown): void {
  if (hasLoneSurrogate(json))
    throw commonErrors.invalidRequest('The body holds a string with an unpaired UTF-16 surrogate (e.g. "\\ud800"), which is not text');
}

// Every key and string, walked without recursion (no nesting can exhaust the stack).
function hasLoneSurrogate(value: unknown): boolean {
  const LONE = /[\uD800-\uDFFF]/u; // with the u flag, only a surrogate that is not half of a pair
  const stack = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (LONE.test(v)) return true;
    } else if (v && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v)) {
        if (LONE.test(k)) return true;
        stack.push(inner);
      }
    }
  }
  return false;
}

// A JSON body, in UTF-8 (RFC 8259 says JSON between systems is UTF-8): another media type or
// charset is 415, bytes that are not UTF-8 or text with an unpaired surrogate (which no UTF-8
// can carry, and would be stored and published as it is) are 400.
export function parseJsonBody(raw: Buffer, contentType: string | undefined): unknown {
  if (/^[ \t\r\n]*$/.test(raw.toString('latin1'))) return undefined; // no body, or JSON's white space only
  const [type, ...params] = (contentType ?? '').split(';').map((p) => p.trim().toLowerCase());
  if (type !== 'application/json') throw httpErrors.unsupportedMediaType('A request body must be sent with Content-Type: application/json');
  const charset = params
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/^"(.*)"$/, '$1');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') throw httpErrors.unsupportedMediaType(`The body must be UTF-8, not ${charset}`);
  let text: string;
  try {
    text = utf8.decode(raw);
  } catch {
    throw httpErrors.malformedJson('The body is not valid UTF-8');
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw httpErrors.malformedJson(`The body is not valid JSON: ${(e as Error).message}`);
  }
  refuseLoneSurrogates(json);
  return json;
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });
