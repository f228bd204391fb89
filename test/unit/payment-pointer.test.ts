import { describe, expect, it } from 'vitest';
import { paymentPointerUrl } from '../../lib/ilp/spsp-pay';
import { DomainError } from '../../lib/shared/errors';

// Payment pointers (Interledger RFC 26) as a quote's receiver: the https URL each names.
describe('paymentPointerUrl', () => {
  it('names https://host/path for $host/path, and the well-known path for $host alone', () => {
    expect(paymentPointerUrl('$wallet.example/alice')).toBe('https://wallet.example/alice');
    expect(paymentPointerUrl('$wallet.example')).toBe('https://wallet.example/.well-known/pay');
    expect(paymentPointerUrl('$wallet.example/')).toBe('https://wallet.example/.well-known/pay');
    expect(paymentPointerUrl('$localhost:5000/carol')).toBe('https://localhost:5000/carol');
    expect(paymentPointerUrl('$Wallet.Example/a/b')).toBe('https://wallet.example/a/b');
  });

  it('is undefined for a receiver that is not a payment pointer', () => {
    expect(paymentPointerUrl('https://wallet.example/incoming-payments/1')).toBeUndefined();
    expect(paymentPointerUrl('0b7e1a3c-8c1e-4b57-9a2e-0d1f1b0c2a11')).toBeUndefined();
  });

  it('refuses a malformed one with a 400 naming receiver', () => {
    for (const bad of ['$', '$/alice', '$wallet example/alice', '$user@wallet.example/alice', '$wallet.example/a?b=1', '$wallet.example/a#b', '$[::1']) {
      let error: unknown;
      try {
        paymentPointerUrl(bad);
      } catch (e) {
        error = e;
      }
      expect(error, bad).toBeInstanceOf(DomainError);
      expect((error as DomainError).status, bad).toBe(400);
      expect((error as DomainError).message, bad).toMatch(/receiver is not a payment pointer/);
    }
  });
});
