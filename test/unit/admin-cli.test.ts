import { describe, expect, it } from 'vitest';
import { documentRoutes, routeProblem } from '../../infra/local/tools/admin-routes';
import { openApiDocument } from '../../lib/api/openapi';
import { allRoutes } from '../../lib/api/routes';

// The CLI (npm run admin) sends only the routes of the Admin API's OpenAPI document, and tells a
// wrong METHOD or path with the routes nearest to it.
const doc = openApiDocument();
const ID = '7d9b2d2c-1111-4222-8333-944455556666';

describe("the CLI's routes", () => {
  it('are the OpenAPI document’s, every route of the table', () => {
    const listed = documentRoutes(doc).map((r) => `${r.method} ${r.path}`);
    expect(listed.sort()).toEqual(allRoutes.map((r) => `${r.method.toUpperCase()} ${r.path}`).sort());
  });

  it('take a route with its ids and query, in any letter case of the method', () => {
    expect(routeProblem(doc, 'GET', `/grants/${ID}`)).toBeUndefined();
    expect(routeProblem(doc, 'post', `/grants/${ID}/revoke`)).toBeUndefined();
    expect(routeProblem(doc, 'GET', '/assets?limit=2')).toBeUndefined();
    expect(routeProblem(doc, 'GET', '/openapi.json')).toBeUndefined();
  });

  it('refuse a method the path does not take, naming those it does', () => {
    expect(routeProblem(doc, 'DELETE', `/grants/${ID}`)).toBe(`DELETE /grants/${ID}: /grants/{id} takes GET, not DELETE`);
  });

  it('refuse a path of no route, naming the routes nearest', () => {
    expect(routeProblem(doc, 'GET', '/grant')).toBe(
      'GET /grant: the Admin API has no such route; its routes under /grants:\n  GET /grants\n  GET /grants/{id}\n  POST /grants/{id}/revoke',
    );
    expect(routeProblem(doc, 'GET', `/grants/${ID}/extra`)).toContain('no such route');
    expect(routeProblem(doc, 'GET', '/nothing')).toBe('GET /nothing: the Admin API has no such route (--routes lists them all)');
  });
});
