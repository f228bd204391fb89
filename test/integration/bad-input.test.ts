import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../stack';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack();
});
afterAll(() => s.stop());

async function codes() {
  return (await s.admin('GET', '/assets?limit=100')).body.items.map((a: { code: string }) => a.code);
}

const signedPost = async (path: string, body: string, contentType?: string) =>
  s.send('POST', path, { body, headers: { ...(contentType && { 'content-type': contentType }), signature: await s.freshSign('POST', path, body) } });

describe('bad input', () => {
  it('answers malformed JSON with 400 malformed_json', async () => {
    const res = await signedPost('/assets', '{"code": "BAD1", ', 'application/json');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.code).toBe('malformed_json');
  });

  it('answers a wrong content type with 400', async () => {
    const res = await signedPost('/assets', JSON.stringify({ code: 'BAD2', scale: 2 }), 'text/plain');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('unsupported_media_type');
    expect((await signedPost('/assets', JSON.stringify({ code: 'BAD2', scale: 2 }))).status).toBe(400);
  });

  it('accepts a charset parameter on application/json', async () => {
    expect((await signedPost('/assets', JSON.stringify({ code: 'CHARSET', scale: 2 }), 'application/json; charset=utf-8')).status).toBe(201);
  });

  it('answers a body over 64 KiB with 413', async () => {
    const body = JSON.stringify({ code: 'BIG', scale: 2, pad: 'x'.repeat(64 * 1024) });
    const res = await signedPost('/assets', body, 'application/json');
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('names every missing, mistyped and unknown field', async () => {
    const res = await s.admin('POST', '/assets', { scale: 'two', extra: 1, more: 2 });
    expect(res.status).toBe(400);
    const fields = res.body.errors.map((e: { field: string }) => e.field).sort();
    expect(fields).toEqual(['code', 'extra', 'more', 'scale']);
    expect(res.body.errors.find((e: { field: string }) => e.field === 'code').message).toBe('is required');
  });

  it('answers non-object bodies with 400', async () => {
    for (const body of ['[]', '"USD"', '42', 'null']) {
      const res = await signedPost('/assets', body, 'application/json');
      expect(res.status, body).toBe(400);
    }
  });

  it('answers an empty body on a route that needs one with 400', async () => {
    const res = await s.admin('POST', '/assets');
    expect(res.status).toBe(400);
  });

  it('changed nothing for any of the above', async () => {
    const listed = await codes();
    for (const code of ['BAD1', 'BAD2', 'BIG']) expect(listed).not.toContain(code);
  });

  it('answers an unknown route with 404', async () => {
    expect((await s.admin('GET', '/nothing-here')).status).toBe(404);
  });
});
