import { describe, expect, it } from 'vitest';
import { canonicalAddress, canonicalOrUndefined, isUnderBase } from '../../lib/wallet-addresses/address';

const base = 'https://Wallet.Example.com/pay/';

describe('wallet address canonical form', () => {
  it('lower-cases and drops a trailing slash', () => {
    expect(canonicalAddress('https://wallet.example.com/pay/Alice/', base)).toBe('https://wallet.example.com/pay/alice');
    expect(canonicalAddress('HTTPS://WALLET.EXAMPLE.COM/PAY/Alice', base)).toBe('https://wallet.example.com/pay/alice');
    expect(canonicalAddress('https://wallet.example.com/pay/team/bob.smith_2~x-y', base)).toBe('https://wallet.example.com/pay/team/bob.smith_2~x-y');
  });

  it('refuses what is not a wallet address under the base', () => {
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
      'mailto:alice@wallet.example.com',
      'alice',
    ]) {
      expect(() => canonicalAddress(bad, base), bad).toThrow(/address/);
    }
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
