import { describe, expect, it } from 'vitest';
import { routeFor } from '../../lib/http/console';
import { allRoutes } from '../../lib/routes';

// The console's hand-off (lib/http/console.ts) finds the Admin route a path names, as API Gateway
// would have: by method and path template, with the path parameters decoded.
describe("the console's route finder", () => {
  it('finds every route of the table by a path of its template, with its parameters', () => {
    for (const route of allRoutes) {
      const path = route.path.replace(/\{(\w+)\}/g, (_, name) => `${name}%20value`);
      const params = Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map((m) => [m[1], `${m[1]} value`]));
      expect(routeFor(route.method, path), `${route.method} ${route.path}`).toEqual({ route, params });
    }
  });

  it('answers the methods a path is served for when not for this one, and none for a path no route serves', () => {
    expect(routeFor('DELETE', '/assets')).toEqual({ allow: ['GET', 'POST'] });
    expect(routeFor('PUT', '/payments/3f5f0d2c-0000-4000-8000-000000000000/fund')).toEqual({ allow: ['POST'] });
    for (const path of ['/nothing', '/assets/a/b/c', '/', '/assets/%zz', '/payments//fund']) expect(routeFor('GET', path), path).toEqual({ allow: [] });
  });
});
