import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../stack';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack();
});
afterAll(() => s.stop());

describe('Idempotency-Key', () => {
  it('replays the first response for the same key and body', async () => {
    const first = await s.admin('POST', '/assets', { code: 'IDEM', scale: 2 }, { 'idempotency-key': 'k-1' });
    expect(first.status).toBe(201);
    const again = await s.admin('POST', '/assets', { code: 'IDEM', scale: 2 }, { 'idempotency-key': 'k-1' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    const without = await s.admin('POST', '/assets', { code: 'IDEM', scale: 2 });
    expect(without.status).toBe(409);
  });

  it('answers the same key with another body with 422 and writes nothing', async () => {
    expect((await s.admin('POST', '/assets', { code: 'IDEMA', scale: 2 }, { 'idempotency-key': 'k-2' })).status).toBe(201);
    const other = await s.admin('POST', '/assets', { code: 'IDEMB', scale: 2 }, { 'idempotency-key': 'k-2' });
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    const codes = (await s.admin('GET', '/assets?limit=100')).body.items.map((a: { code: string }) => a.code);
    expect(codes).not.toContain('IDEMB');
  });

  it('scopes keys per route', async () => {
    const asset = await s.admin('POST', '/assets', { code: 'SCOPE', scale: 2 }, { 'idempotency-key': 'k-3' });
    expect(asset.status).toBe(201);
    const wallet = await s.admin(
      'POST',
      '/wallet-addresses',
      { address: `${s.openPaymentsUrl}/scope`, assetCode: 'SCOPE' },
      { 'idempotency-key': 'k-3' },
    );
    expect(wallet.status).toBe(201);
    expect(wallet.body.address).toBe(`${s.openPaymentsUrl}/scope`);
  });

  it('does not store a failed request, so a corrected retry succeeds', async () => {
    const bad = await s.admin('POST', '/assets', { code: 'RETRY', scale: 999 }, { 'idempotency-key': 'k-4' });
    expect(bad.status).toBe(400);
    const conflict = await s.admin('POST', '/assets', { code: 'SCOPE', scale: 2 }, { 'idempotency-key': 'k-5' });
    expect(conflict.status).toBe(409);
    const good = await s.admin('POST', '/assets', { code: 'RETRY', scale: 2 }, { 'idempotency-key': 'k-4' });
    expect(good.status).toBe(201);
  });

  it('refuses an over-long key with 400', async () => {
    const res = await s.admin('POST', '/assets', { code: 'LONGK', scale: 2 }, { 'idempotency-key': 'k'.repeat(256) });
    expect(res.status).toBe(400);
  });
});
