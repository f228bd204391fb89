import { invalidField } from './errors';
import { TENANT_PATH } from './node';

// Wallet address URLs are compared case-insensitively, so the service keeps one canonical form:
// lower case, no trailing slash, no query or fragment, under the configured base. A new one must
// also not collide with the resource server's own paths, nor take the service's own address.
const SEGMENT = /^[a-z0-9._~-]+$/;
const NEW_SEGMENT = /^[a-z0-9][a-z0-9._~-]*$/;
export const RESERVED_SEGMENTS = ['incoming-payments', 'outgoing-payments', 'outgoing-payment-grant', 'quotes', '.well-known', 'jwks.json'];

export function canonicalBase(base: string): string {
  return base.toLowerCase().replace(/\/+$/, '');
}

// Whether two URLs name the same wallet address, or the same resource under one, as a grant's
// `identifier` and a request may spell it: `https://x/Alice/` is `https://x/alice`.
export const sameAddress = (a: string, b: string) => canonicalBase(a) === canonicalBase(b);

export function isUnderBase(address: string, base: string): boolean {
  return address.toLowerCase().startsWith(`${canonicalBase(base)}/`);
}

// What wallet addresses are under: WALLET_ADDRESS_URL (a string), or a tenant's prefix, which a refusal names so.
export type AddressBase = string | { url: string; name: string };

// `field`: the request's field that holds it, which a refusal names.
export function canonicalAddress(input: string, base: AddressBase, field = 'address'): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw invalidField(field, 'must be an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalidField(field, 'must be an http or https URL');
  if (url.username || url.password || input.includes('?') || input.includes('#')) {
    throw invalidField(field, 'must not contain credentials, a query or a fragment');
  }
  const address = url.href.toLowerCase().replace(/\/+$/, '');
  const { url: baseUrl, name } = typeof base === 'string' ? { url: base, name: 'WALLET_ADDRESS_URL' } : base;
  const root = canonicalBase(baseUrl);
  if (!address.startsWith(`${root}/`)) throw invalidField(field, `must be under ${name} (${root}/...)`);
  const segments = address.slice(root.length + 1).split('/');
  if (!segments.every((s) => SEGMENT.test(s))) throw invalidField(field, 'path segments may hold only letters, digits, ".", "_", "~" and "-"');
  return address;
}

// The most path segments a new address has (the base's counted): the operator's claims each of its
// paths in the transaction that makes it, as a tenant's prefix does (lib/tenants), and DynamoDB takes
// at most 100 items in one; 64 leaves room for the record, its look-up item, the audit event and the
// signature's guard. A prefix has one fewer, so that an address fits under it.
export const MAX_ADDRESS_SEGMENTS = 64;
export const MAX_PREFIX_SEGMENTS = MAX_ADDRESS_SEGMENTS - 1;

// The canonical form of an address to create (or of a tenant's prefix, named by `field`, with at
// most `maxSegments`).
export function newAddress(input: string, base: AddressBase, field = 'address', maxSegments = MAX_ADDRESS_SEGMENTS): string {
  const address = canonicalAddress(input, base, field);
  const path = new URL(address).pathname.split('/').filter(Boolean);
  if (path.length > maxSegments) throw invalidField(field, `must have at most ${maxSegments} path segments, not ${path.length}`);
  const segments = address.slice(canonicalBase(typeof base === 'string' ? base : base.url).length + 1).split('/');
  const reserved = segments.find((s) => RESERVED_SEGMENTS.includes(s));
  if (reserved) throw invalidField(field, `must not have a path segment "${reserved}": ${RESERVED_SEGMENTS.join(', ')} are the resource server's own paths`);
  if (!segments.every((s) => NEW_SEGMENT.test(s))) throw invalidField(field, 'path segments must start with a letter or digit');
  if (new URL(address).pathname.startsWith(TENANT_PATH))
    throw invalidField(field, `must not be under ${TENANT_PATH}: the tenants' Open Payments servers are there`);
  return address;
}

// The canonical form of `url` if it can be a wallet address under `base`, else undefined: for
// look-ups, where a URL that cannot be a wallet address simply matches none.
export function canonicalOrUndefined(url: string, base: string): string | undefined {
  try {
    return canonicalAddress(url, base);
  } catch {
    return undefined;
  }
}
