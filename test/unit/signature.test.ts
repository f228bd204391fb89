import { describe, expect, it } from 'vitest';
import { computeSignature, signatureHeader, verifySignature } from '../../lib/http/signature';

const secret = 'unit-test-secret-123456';
const req = { method: 'POST', pathWithQuery: '/assets?x=1', body: '{"code":"USD","scale":2}' };

describe('request signatures', () => {
  it('matches an HMAC computed by hand over "<t>.<METHOD>.<path>.<Idempotency-Key>.<body>", t as sent', async () => {
    const { createHmac } = await import('node:crypto');
    const hmac = (text: string) => createHmac('sha256', secret).update(text).digest('hex');
    expect(computeSignature(secret, '1700000000', req)).toBe(hmac(`1700000000.POST./assets?x=1..${req.body}`));
    expect(signatureHeader(secret, req, 1700000000)).toBe(`t=1700000000, v1=${hmac(`1700000000.POST./assets?x=1..${req.body}`)}`);
    const keyed = { ...req, idempotencyKey: 'k-1' };
    expect(signatureHeader(secret, keyed, '1700000000.120')).toBe(`t=1700000000.120, v1=${hmac(`1700000000.120.POST./assets?x=1.k-1.${req.body}`)}`);
  });

  it('signs with milliseconds by default', () => {
    expect(signatureHeader(secret, req)).toMatch(/^t=\d{10}\.\d{3}, v1=[0-9a-f]{64}$/);
  });

  it('takes t exactly as sent: the same instant written otherwise does not match', () => {
    const header = signatureHeader(secret, req, '1000.100');
    expect(verifySignature(header, secret, req, 1000)).toMatchObject({ ok: true, t: 1000.1 });
    expect(verifySignature(header.replace('t=1000.100', 't=1000.1'), secret, req, 1000).ok).toBe(false);
  });

  it('refuses a request whose Idempotency-Key was removed, added or changed', () => {
    const keyed = { ...req, idempotencyKey: 'pay-42' };
    const header = signatureHeader(secret, keyed, 1000);
    expect(verifySignature(header, secret, keyed, 1000).ok).toBe(true);
    expect(verifySignature(header, secret, req, 1000).ok).toBe(false);
    expect(verifySignature(header, secret, { ...req, idempotencyKey: 'pay-43' }, 1000).ok).toBe(false);
    expect(verifySignature(signatureHeader(secret, req, 1000), secret, keyed, 1000).ok).toBe(false);
  });

  it('verifies its own headers and refuses every change', () => {
    const header = signatureHeader(secret, req, 1000);
    expect(verifySignature(header, secret, req, 1000)).toMatchObject({ ok: true, t: 1000 });
    expect(verifySignature(header, secret, { ...req, body: `${req.body} ` }, 1000).ok).toBe(false);
    expect(verifySignature(header, secret, { ...req, method: 'GET' }, 1000).ok).toBe(false);
    expect(verifySignature(header, secret, { ...req, pathWithQuery: '/assets' }, 1000).ok).toBe(false);
    expect(verifySignature(header, 'other-secret-123456', req, 1000).ok).toBe(false);
  });

  it('allows 300 s of clock difference each way, no more', () => {
    const header = signatureHeader(secret, req, 1000);
    expect(verifySignature(header, secret, req, 1300).ok).toBe(true);
    expect(verifySignature(header, secret, req, 700).ok).toBe(true);
    expect(verifySignature(header, secret, req, 1301)).toMatchObject({ ok: false, reason: expect.stringContaining('300 s') });
    expect(verifySignature(header, secret, req, 699).ok).toBe(false);
  });

  it('accepts any one matching v1 (secret rotation) and tolerates spacing', () => {
    const good = computeSignature(secret, '1000', req);
    expect(verifySignature(`t=1000,v1=${'a'.repeat(64)},v1=${good}`, secret, req, 1000).ok).toBe(true);
    expect(verifySignature(`t=1000 , v1=${good.toUpperCase()}`, secret, req, 1000).ok).toBe(true);
  });

  it('refuses malformed headers with a reason', () => {
    for (const h of [undefined, '', 'x', 't=1000', 'v1=ab', 't=-5, v1=ab', 't=1e3, v1=ab', 't=1000., v1=ab', 't=.5, v1=ab', 't=1000, v1=zz']) {
      const r = verifySignature(h, secret, req, 1000);
      expect(r.ok, String(h)).toBe(false);
    }
  });
});
