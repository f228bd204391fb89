import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';

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

  it('keeps the first response after refusing another body under its key: the first body again replays it, and runs nothing', async () => {
    const first = await s.admin('POST', '/assets', { code: 'KEEP', scale: 2 }, { 'idempotency-key': 'k-7' });
    expect(first.status).toBe(201);
    expect((await s.admin('POST', '/assets', { code: 'KEEPB', scale: 2 }, { 'idempotency-key': 'k-7' })).status).toBe(422);
    // Refusing it must not forget the first: the same request again is its replay, not a second run
    // (which would be a 409 for this code; for a resource with a fresh id, a second resource).
    const again = await s.admin('POST', '/assets', { code: 'KEEP', scale: 2 }, { 'idempotency-key': 'k-7' });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
  });

  it('scopes keys per route', async () => {
    const asset = await s.admin('POST', '/assets', { code: 'SCOPE', scale: 2 }, { 'idempotency-key': 'k-3' });
    expect(asset.status).toBe(201);
    const wallet = await s.admin('POST', '/wallet-addresses', { address: `${s.openPaymentsUrl}/scope`, assetCode: 'SCOPE' }, { 'idempotency-key': 'k-3' });
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

  it('the same key on another resource of the same route is 422, not the first response', async () => {
    await s.admin('POST', '/assets', { code: 'LIQ', scale: 2 });
    const [a, b] = [
      (await s.admin('POST', '/assets', { code: 'LIQA', scale: 2 })).body.id,
      (await s.admin('POST', '/assets', { code: 'LIQB', scale: 2 })).body.id,
    ];
    expect((await s.admin('POST', `/assets/${a}/liquidity`, { amount: '100' }, { 'idempotency-key': 'k-6' })).status).toBe(200);
    const other = await s.admin('POST', `/assets/${b}/liquidity`, { amount: '100' }, { 'idempotency-key': 'k-6' });
    expect(other.status).toBe(422);
    expect((await s.admin('GET', `/assets/${b}`)).body.liquidity.value).toBe('0');
    // A repeated deposit with the same key moves the money once.
    expect((await s.admin('POST', `/assets/${a}/liquidity`, { amount: '100' }, { 'idempotency-key': 'k-6' })).status).toBe(200);
    expect((await s.admin('GET', `/assets/${a}`)).body.liquidity.value).toBe('100');
  });

  it('refuses an over-long key with 400', async () => {
    const res = await s.admin('POST', '/assets', { code: 'LONGK', scale: 2 }, { 'idempotency-key': 'k'.repeat(256) });
    expect(res.status).toBe(400);
  });
});
