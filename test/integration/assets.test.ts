import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';

// Assets through the Admin API: its answers, validation, cursors' checks and 404s. Their rules (one
// asset a code however many race, liquidity over shards, the list newest first) are tested in
// memory: test/unit/services/assets.test.ts.
let s: TestStack;
beforeAll(async () => {
  s = await startTestStack();
});
afterAll(() => s.stop());

describe('assets', () => {
  it('creates an asset and reads it back by id', async () => {
    const res = await s.admin('POST', '/assets', { code: 'USD', scale: 2 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), code: 'USD', scale: 2, createdAt: expect.any(String) });
    expect(Object.keys(res.body)).toEqual(['id', 'code', 'scale', 'createdAt']);
    const got = await s.admin('GET', `/assets/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...res.body, liquidity: { value: '0', assetCode: 'USD', assetScale: 2 } });
  });

  it('refuses a second asset with the same code with 409', async () => {
    await s.admin('POST', '/assets', { code: 'GBP', scale: 2 });
    const again = await s.admin('POST', '/assets', { code: 'GBP', scale: 3 });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toBe('application/problem+json');
    expect(again.body).toMatchObject({ status: 409, code: 'asset_exists', title: 'Conflict' });
  });

  it('validates code and scale, naming the field', async () => {
    for (const [body, field] of [
      [{ code: 'us', scale: 2 }, 'code'],
      [{ code: 'AB', scale: 2 }, 'code'],
      [{ code: 'ABCDEFGHIJKLM', scale: 2 }, 'code'],
      [{ code: 'EUR', scale: 256 }, 'scale'],
      [{ code: 'EUR', scale: -1 }, 'scale'],
      [{ code: 'EUR', scale: 1.5 }, 'scale'],
      [{ code: 'EUR', scale: '2' }, 'scale'],
      [{ code: 'EUR' }, 'scale'],
      [{ code: 'EUR', scale: 2, colour: 'red' }, 'colour'],
    ] as const) {
      const res = await s.admin('POST', '/assets', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const listed = await s.admin('GET', '/assets?limit=100');
    expect(listed.body.items.map((a: { code: string }) => a.code)).not.toContain('EUR');
  });

  it('accepts the edges of the allowed ranges', async () => {
    expect((await s.admin('POST', '/assets', { code: 'ABC', scale: 0 })).status).toBe(201);
    expect((await s.admin('POST', '/assets', { code: 'ABCDEFGHIJ12', scale: 255 })).status).toBe(201);
  });

  it('rejects a bad limit or a forged cursor with 400', async () => {
    expect((await s.admin('GET', '/assets?limit=0')).status).toBe(400);
    expect((await s.admin('GET', '/assets?limit=101')).status).toBe(400);
    expect((await s.admin('GET', '/assets?limit=abc')).status).toBe(400);
    const forged = Buffer.from(JSON.stringify({ pk: 'WA#x', sk: 'WA' })).toString('base64url');
    const res = await s.admin('GET', `/assets?cursor=${forged}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_cursor', errors: [{ field: 'query.cursor' }] });
    expect((await s.admin('GET', '/assets?cursor=%%%')).status).toBe(400);
    const empty = Buffer.from(JSON.stringify({ after: '' })).toString('base64url');
    expect((await s.admin('GET', `/assets?cursor=${empty}`)).status).toBe(400);
    expect((await s.admin('GET', '/assets?colour=red')).status).toBe(400);
  });

  it('answers 404 for an unknown or impossible id', async () => {
    const unknown = await s.admin('GET', '/assets/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('asset_not_found');
    expect((await s.admin('GET', '/assets/not-a-uuid')).status).toBe(404);
  });
});
