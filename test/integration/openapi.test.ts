import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRoutes, loadService } from '../../infra/local/serverless-config';
import { openApiDocument, operations } from '../../lib/openapi';
import { startTestStack, type TestStack } from '../stack';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack();
});
afterAll(() => s.stop());

describe('GET /openapi.json', () => {
  it('serves an OpenAPI 3.1 document without a signature', async () => {
    const res = await fetch(`${s.adminUrl}/openapi.json`);
    expect(res.status).toBe(200);
    const doc = await res.json();
    expect(doc).toEqual(openApiDocument());
    expect(doc.openapi).toBe('3.1.0');
    const create = doc.paths['/assets'].post;
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CreateAssetRequest' });
    expect(doc.components.schemas.CreateAssetRequest).toMatchObject({
      type: 'object',
      required: ['code', 'scale'],
      additionalProperties: false,
      properties: { scale: { type: 'integer', minimum: 0, maximum: 255 } },
    });
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '400', '401', '409', '413', '422', '500']));
    expect(doc.paths['/openapi.json'].get.security).toEqual([]);
  });

  it('documents exactly the Admin routes that serverless.yml declares', () => {
    const declared = eventRoutes(loadService('local').functions)
      .filter((r) => r.path !== '/openapi.json')
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    const documented = operations.map((o) => `${o.method.toUpperCase()} ${o.path}`).sort();
    expect(documented).toEqual(declared);
  });
});
