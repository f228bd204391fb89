import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventRoutes, loadService, ROOT } from '../../infra/local/start/serverless-config';
import { openApiDocument } from '../../lib/api/openapi';
import { allRoutes } from '../../lib/api/routes';
import { startTestStack, type TestStack } from '../harness/stack';

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
});

// The route table (lib/api/routes) against serverless.yml and the handlers: a route added to one
// place only, a function renamed, a role changed or a handler serving another entry fails here.
describe('the route table', () => {
  // (The console's routes are its own, not the Admin API's operations: functions/console; so is
  // POST /graphql, Rafiki's API over those operations: lib/api/graphql.)
  const declared = eventRoutes(loadService('local').functions.filter((f) => f.name !== 'console' && f.name !== 'adminGraphql'));
  const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path}`;

  it("and serverless.yml's http events declare the same routes, each once, with the same function and role", () => {
    const fromYaml = declared.map((r) => ({ route: routeKey(r.method, r.path), functionName: r.fn.name, role: r.fn.role }));
    const fromTable = allRoutes.map((r) => ({ route: routeKey(r.method, r.path), functionName: r.functionName, role: r.role }));
    const byRoute = (a: { route: string }, b: { route: string }) => a.route.localeCompare(b.route);
    expect(fromTable.sort(byRoute)).toEqual(fromYaml.sort(byRoute));
    expect(new Set(fromTable.map((r) => r.route)).size, 'a route twice in the table').toBe(fromTable.length);
    expect(new Set(fromYaml.map((r) => r.route)).size, 'a route twice in serverless.yml').toBe(fromYaml.length);
  });

  it("has each function's handler serve its own entry", async () => {
    // (After the stack has started: a handler's module reads the settings when it loads.)
    for (const { method, path, fn } of declared) {
      const entry = allRoutes.find((r) => routeKey(r.method, r.path) === routeKey(method, path));
      const file = join(ROOT, `${fn.handler.slice(0, fn.handler.lastIndexOf('.'))}.ts`);
      const { handler } = await import(pathToFileURL(file).href);
      expect(handler.route, fn.handler).toBe(entry?.id);
    }
  });
});
