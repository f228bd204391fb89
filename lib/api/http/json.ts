import { commonErrors } from '../../shared/errors';

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
