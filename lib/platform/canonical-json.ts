import canonicalize from 'canonicalize';

// RFC 8785 (JSON Canonicalization Scheme): the one serialization Rafiki signs (its webhooks'
// Rafiki-Signature, its Admin API's signature), by the scheme's author's package. One module, so
// that every signer and verifier of ours agrees, and a swap is one line.
export function canonicalJson(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('A value with no JSON form (undefined, a function) cannot be canonicalized');
  return text;
}
