// Wallet address prefixes are compared by path segment: `https://h/acme` holds
// `https://h/acme/alice`, not `https://h/acme2/x`.

// The URL and each shorter path of it, down to its first segment, longest first:
// `https://h/a/b` -> [`https://h/a/b`, `https://h/a`].
export function pathsOf(url: string): string[] {
  const { origin, pathname } = new URL(url);
  const segments = pathname.split('/').filter(Boolean);
  return segments.map((_, i) => `${origin}/${segments.slice(0, segments.length - i).join('/')}`);
}

// Whether `inner` is `outer` or a URL below it.
export const isAtOrBelow = (inner: string, outer: string) => inner === outer || inner.startsWith(`${outer}/`);

// A tenant's default ILP address suffix: `t` and the first 12 hex digits of its id.
export const defaultSuffix = (id: string) => `t${id.replace(/-/g, '').slice(0, 12)}`;
