import { createHmac, generateKeyPairSync } from 'node:crypto';
import { createHeaders, createSignatureHeaders, generateJwk } from '@interledger/http-signature-utils';
import { describe, expect, it } from 'vitest';
import { adminSigner } from '../../infra/local/tools/admin-client';
import { verifySignature as verifyMessage } from '../../lib/api/http/message-signatures';
import { computeSignature, signatureHeader, verifySignature } from '../../lib/api/http/signature';

const secret = 'unit-test-secret-123456';
const req = { method: 'POST', pathWithQuery: '/assets?x=1', body: '{"code":"USD","scale":2}' };

describe('request signatures', () => {
  it('matches an HMAC computed by hand over "<t>\\n<METHOD>\\n<path>\\n<Idempotency-Key>\\n<tenant-id>\\n<body>", t as sent', () => {
    const hmac = (text: string) => createHmac('sha256', secret).update(text).digest('hex');
    expect(computeSignature(secret, '1700000000', req)).toBe(hmac(`1700000000\nPOST\n/assets?x=1\n\n\n${req.body}`));
    expect(signatureHeader(secret, req, 1700000000)).toBe(`t=1700000000, v3=${hmac(`1700000000\nPOST\n/assets?x=1\n\n\n${req.body}`)}`);
    const keyed = { ...req, idempotencyKey: 'k-1', tenantId: 't-1' };
    expect(signatureHeader(secret, keyed, '1700000000.120')).toBe(`t=1700000000.120, v3=${hmac(`1700000000.120\nPOST\n/assets?x=1\nk-1\nt-1\n${req.body}`)}`);
  });

  // Issue 42, item 3: v2 left the tenant out, so an operator's signed GET read any tenant's data
  // (the same signature with another tenant-id header, or none).
  it('refuses a request whose tenant-id was removed, added or changed', () => {
    const get = { method: 'GET', pathWithQuery: '/assets', body: '', tenantId: 'tenant-1' };
    const header = signatureHeader(secret, get, 1000);
    expect(verifySignature(header, secret, get, 1000).ok).toBe(true);
    for (const tenantId of ['tenant-2', undefined, '']) expect(verifySignature(header, secret, { ...get, tenantId }, 1000).ok, String(tenantId)).toBe(false);
    expect(verifySignature(signatureHeader(secret, { ...get, tenantId: undefined }, 1000), secret, get, 1000).ok).toBe(false);
    // The key and the tenant are two fields: a character cannot move from one to the other.
    const split = { ...get, idempotencyKey: 'a', tenantId: 'b' };
    expect(verifySignature(signatureHeader(secret, split, 1000), secret, { ...split, idempotencyKey: 'a\nb', tenantId: undefined }, 1000).ok).toBe(false);
    expect(() => signatureHeader(secret, { ...get, tenantId: 'a\nb' }, 1000)).toThrow(/line break/);
  });

  // D1: with fields joined by ".", a "." could move from one field to the next and the same
  // signature verified another request. These are the forgeries that worked on v1.
  it('one signature verifies one request: no character moves between the path, the key and the body', () => {
    const lookup = { method: 'GET', pathWithQuery: '/wallet-addresses?address=http%3A%2F%2Flocalhost%3A5002%2Fcarol.smith', body: '' };
    const header = signatureHeader(secret, lookup, 1000);
    expect(verifySignature(header, secret, lookup, 1000).ok).toBe(true);
    const forged = { method: 'GET', pathWithQuery: '/wallet-addresses?address=http%3A%2F%2Flocalhost%3A5002%2Fcarol', idempotencyKey: 'smith.', body: '' };
    expect(verifySignature(header, secret, forged, 1000).ok).toBe(false);

    const retry = { method: 'POST', pathWithQuery: '/assets', idempotencyKey: 'retry.{}', body: '' };
    const posted = signatureHeader(secret, retry, 1000);
    expect(verifySignature(posted, secret, retry, 1000).ok).toBe(true);
    expect(verifySignature(posted, secret, { ...retry, idempotencyKey: 'retry', body: '{}.' }, 1000).ok).toBe(false);
    // The new separator cannot be moved: no request can carry a line break in the path or the
    // key, so the signer refuses to sign one and the verifier never matches one.
    expect(() => signatureHeader(secret, { ...retry, idempotencyKey: 'retry\n{}' }, 1000)).toThrow(/line break/);
    const keyed = { method: 'GET', pathWithQuery: '/assets', idempotencyKey: 'a\nb', body: '' };
    expect(verifySignature(`t=1000, v3=${computeSignature(secret, '1000', keyed)}`, secret, keyed, 1000).ok).toBe(false);
    const pathBreak = { method: 'GET', pathWithQuery: '/assets\nx', body: '' };
    expect(verifySignature(`t=1000, v3=${computeSignature(secret, '1000', pathBreak)}`, secret, pathBreak, 1000).ok).toBe(false);
  });

  it('refuses v1 and v2 with a reason that names v3', () => {
    const v1 = createHmac('sha256', secret).update(`1000.POST./assets?x=1..${req.body}`).digest('hex');
    expect(verifySignature(`t=1000, v1=${v1}`, secret, req, 1000)).toEqual({ ok: false, reason: expect.stringContaining('sign with v3') });
    const v2 = createHmac('sha256', secret).update(`1000\nPOST\n/assets?x=1\n\n${req.body}`).digest('hex');
    expect(verifySignature(`t=1000, v2=${v2}`, secret, req, 1000)).toEqual({ ok: false, reason: expect.stringContaining('sign with v3') });
  });

  it('signs with milliseconds by default', () => {
    expect(signatureHeader(secret, req)).toMatch(/^t=\d{10}\.\d{3}, v3=[0-9a-f]{64}$/);
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

  it('accepts any one matching v3 (secret rotation) and tolerates spacing', () => {
    const good = computeSignature(secret, '1000', req);
    expect(verifySignature(`t=1000,v3=${'a'.repeat(64)},v3=${good}`, secret, req, 1000).ok).toBe(true);
    expect(verifySignature(`t=1000 , v3=${good.toUpperCase()}`, secret, req, 1000).ok).toBe(true);
  });

  it('refuses malformed headers with a reason', () => {
    for (const h of [
      undefined,
      '',
      'x',
      't=1000',
      'v3=ab',
      't=-5, v3=ab',
      't=1e3, v3=ab',
      't=1000., v3=ab',
      't=.5, v3=ab',
      't=1000, v3=zz',
      't=1000, v1=ab',
      't=1000, v2=ab',
    ]) {
      const r = verifySignature(h, secret, req, 1000);
      expect(r.ok, String(h)).toBe(false);
    }
  });
});

describe('the Admin client signer', () => {
  it('gives equal requests signed at once signatures of their own, each verifying, their t strictly increasing', () => {
    const secret = 'a-secret-of-at-least-16';
    const req = { method: 'POST', pathWithQuery: '/assets', body: '{"code":"USD","scale":2}' };
    const one = adminSigner(secret);
    const signed = Array.from({ length: 1000 }, () => one.sign(req));
    expect(new Set(signed).size).toBe(1000);
    const ts = signed.map((h) => BigInt(/^t=(\d+)\.(\d{6}),/.exec(h)!.slice(1).join('')));
    expect(ts.every((t, i) => i === 0 || t > ts[i - 1])).toBe(true);
    for (const h of signed.slice(0, 3)) expect(verifySignature(h, secret, req, Date.now() / 1000).ok).toBe(true);
  });
});

// Open Payments' HTTP message signatures (RFC 9421, lib/api/http/message-signatures.ts).
describe('Open Payments message signatures', () => {
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = generateJwk({ privateKey, keyId: 'k1' });
  const url = 'https://auth.example/';
  const body = JSON.stringify({ access_token: { access: [{ type: 'incoming-payment', actions: ['read'] }] }, client: 'https://wallet.example/app' });
  const findKey = async (keyId: string) => (keyId === 'k1' ? jwk : undefined);
  const lower = (h: object) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), String(v)]));

  it('verifies a request with a body signed over its content-digest, as the official client signs it', async () => {
    const headers = lower(
      await createHeaders({ request: { method: 'POST', url, headers: { 'content-type': 'application/json' }, body }, privateKey, keyId: 'k1' }),
    );
    expect(headers['signature-input']).toContain('"content-digest"');
    expect(await verifyMessage({ method: 'POST', urls: [url], headers, body }, findKey)).toEqual({ ok: true, keyId: 'k1' });
  });

  // A signature over @method and @target-uri only says nothing of the body: anyone holding one
  // could send any body under it. It was accepted (the grant was issued).
  it('refuses a request with a body whose signature does not cover content-digest', async () => {
    const signed = lower(await createSignatureHeaders({ request: { method: 'POST', url, headers: {} }, privateKey, keyId: 'k1' }));
    expect(signed['signature-input']).not.toContain('content-digest');
    const headers = { ...signed, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) };
    expect(await verifyMessage({ method: 'POST', urls: [url], headers, body }, findKey)).toEqual({
      ok: false,
      reason: expect.stringContaining('content-digest'),
    });
    // The same signature on a request without a body is what it covers.
    expect(await verifyMessage({ method: 'POST', urls: [url], headers: signed }, findKey)).toEqual({ ok: true, keyId: 'k1' });
  });
});
