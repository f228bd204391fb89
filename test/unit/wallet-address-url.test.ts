import { describe, expect, it } from 'vitest';
import { canonicalAddress, canonicalOrUndefined, isUnderBase, newAddress } from '../../lib/shared/wallet-address-url';

const base = 'https://Wallet.Example.com/pay/';

describe('wallet address canonical form', () => {
  it('lower-cases and drops a trailing slash', () => {
    expect(canonicalAddress('https://wallet.example.com/pay/Alice/', base)).toBe('https://wallet.example.com/pay/alice');
    expect(canonicalAddress('HTTPS://WALLET.EXAMPLE.COM/PAY/Alice', base)).toBe('https://wallet.example.com/pay/alice');
    expect(canonicalAddress('https://wallet.example.com/pay/team/bob.smith_2~x-y', base)).toBe('https://wallet.example.com/pay/team/bob.smith_2~x-y');
  });

  it('refuses to create what is not a wallet address under the base, or collides with the resource server', () => {
    for (const bad of [
      'https://wallet.example.com/payments/alice',
      'https://wallet.example.com/pay',
      'https://evil.example.com/pay/alice',
      'https://user:pw@wallet.example.com/pay/alice',
      'https://wallet.example.com/pay/alice?q=1',
      'https://wallet.example.com/pay/alice#f',
      'https://wallet.example.com/pay/-alice',
      'https://wallet.example.com/pay/a%20b',
      'https://wallet.example.com/pay/alice/jwks.json',
      'https://wallet.example.com/pay/incoming-payments',
      'https://wallet.example.com/pay/team/quotes',
      'https://wallet.example.com/pay/outgoing-payments/x',
      'https://wallet.example.com/pay/.well-known/pay',
      'mailto:alice@wallet.example.com',
      'alice',
    ]) {
      expect(() => newAddress(bad, base), bad).toThrow(/address/);
    }
    expect(() => newAddress('https://wallet.example.com/pay/quotes', base)).toThrow(/"quotes".*resource server's own paths/);
  });

  it("finds the service's own address, which nobody can create", () => {
    expect(canonicalOrUndefined('https://wallet.example.com/pay/.well-known/pay', base)).toBe('https://wallet.example.com/pay/.well-known/pay');
  });

  it('gives undefined, not an error, for a URL that cannot be a wallet address', () => {
    expect(canonicalOrUndefined('HTTPS://Wallet.Example.com/pay/Alice/', base)).toBe('https://wallet.example.com/pay/alice');
    expect(canonicalOrUndefined('not a url', base)).toBeUndefined();
    expect(canonicalOrUndefined('https://evil.example.com/pay/alice', base)).toBeUndefined();
  });

  it('tells whether an address is under a base, ignoring case', () => {
    expect(isUnderBase('https://WALLET.example.com/pay/x', base)).toBe(true);
    expect(isUnderBase('https://wallet.example.com/payx', base)).toBe(false);
  });
});
