// A REST API (API Gateway v1) hands a function the query decoded, one list of values per name,
// never as sent. A signature covers the query as sent, so a verifier rebuilds it the ways clients
// write it and tries each: as typed (only what would change the query's meaning is escaped), as
// URLSearchParams writes it (space as "+"), and as encodeURIComponent writes it. Every way
// decodes to the same parameters, so accepting any of them gives a forger nothing.
export type Query = Record<string, Array<string | undefined> | undefined> | null | undefined;

// The URL standard's query escapes, plus what the query's structure needs: & + (and = in a name),
// and a % that starts an escape (a lone % can only have been sent as it is: decoding kept it).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what a client must escape
const AS_TYPED = { name: /[\x00-\x20"#<>'&+=\x7f]|%(?=[0-9a-f]{2})|[^\x00-\x7f]+/giu, value: /[\x00-\x20"#<>'&+\x7f]|%(?=[0-9a-f]{2})|[^\x00-\x7f]+/giu };
const asTyped = (s: string, isName: boolean) => s.replace(isName ? AS_TYPED.name : AS_TYPED.value, (c) => encodeURIComponent(c).replace(/'/g, '%27'));

export function entriesOf(query: Query): Array<[string, string]> {
  return Object.entries(query ?? {}).flatMap(([k, values]) => (values ?? []).map((v) => [k, v ?? ''] as [string, string]));
}

// The distinct ways a client may have written these parameters, in this order, without the "?".
export function sentQueries(entries: Array<[string, string]>): string[] {
  if (!entries.length) return [''];
  const join = (encode: (s: string, isName: boolean) => string) => {
    try {
      return [entries.map(([k, v]) => `${encode(k, true)}=${encode(v, false)}`).join('&')];
    } catch {
      return []; // a lone surrogate cannot be percent-encoded: no client sent it so
    }
  };
  return [...new Set([...join(asTyped), new URLSearchParams(entries).toString(), ...join((s) => encodeURIComponent(s))])];
}
