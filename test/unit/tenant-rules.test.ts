import { describe, expect, it } from 'vitest';
import { defaultSuffix, isAtOrBelow, pathsOf } from '../../lib/tenants/rules';

// Tenants' prefixes compared by path segment, and the default ILP address suffix.
describe("tenants' rules", () => {
  it('lists a URL and each shorter path of it, longest first, down to its first segment', () => {
    expect(pathsOf('https://h/a/b/c')).toEqual(['https://h/a/b/c', 'https://h/a/b', 'https://h/a']);
    expect(pathsOf('https://h/a')).toEqual(['https://h/a']);
    expect(pathsOf('https://h:8443/a/')).toEqual(['https://h:8443/a']);
    expect(pathsOf('https://h')).toEqual([]);
  });

  it('holds a URL below a prefix by whole segments only', () => {
    expect(isAtOrBelow('https://h/acme/alice', 'https://h/acme')).toBe(true);
    expect(isAtOrBelow('https://h/acme', 'https://h/acme')).toBe(true);
    expect(isAtOrBelow('https://h/acme2/x', 'https://h/acme')).toBe(false);
    expect(isAtOrBelow('https://h/acm', 'https://h/acme')).toBe(false);
  });

  it('derives the default suffix from the id: t and 12 hex digits, one ILP address segment', () => {
    expect(defaultSuffix('0b0c2f6e-54a8-4a3e-9a57-5a0e0a0a0a0a')).toBe('t0b0c2f6e54a8');
  });
});
