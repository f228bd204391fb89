import type { APIGatewayProxyEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { handOffTarget, routeFor, servePage } from '../../lib/api/http/console';
import { allRoutes } from '../../lib/api/routes';

// The console's hand-off (lib/api/http/console.ts) finds the Admin route a path names, as API Gateway
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

// The console invoked the functions by their unqualified names: $LATEST, past the alias that
// CodeDeploy shifts (a canary's new version, its alarms and its rollback never saw those calls).
describe("the console's hand-off target", () => {
  const self = (qualifier: string) => ({
    functionName: 'payment-service-prod-console',
    invokedFunctionArn: `arn:aws:lambda:eu-west-1:123456789012:function:payment-service-prod-console${qualifier}`,
  });
  it("is the route's function through the alias the console was called through, unqualified where it was", () => {
    expect(handOffTarget(self(':live'), 'console', 'assetsList')).toBe('payment-service-prod-assetsList:live');
    expect(handOffTarget(self(''), 'console', 'assetsList')).toBe('payment-service-prod-assetsList');
    // A version or $LATEST is the console's own, never another function's.
    expect(handOffTarget(self(':12'), 'console', 'assetsList')).toBe('payment-service-prod-assetsList');
    expect(handOffTarget(self(':$LATEST'), 'console', 'assetsList')).toBe('payment-service-prod-assetsList');
    // Locally: the functions by their names in serverless.yml, unqualified.
    expect(
      handOffTarget({ functionName: 'console', invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:console' }, 'console', 'assetsList'),
    ).toBe('assetsList');
  });
});

describe("servePage: the console's page and its files", () => {
  const get = (path: string) => ({ httpMethod: 'GET', path }) as APIGatewayProxyEvent;
  const files = { html: '<body data-node="{{node}}">', js: 'js', css: 'css' };
  const local = { kind: 'local' } as const;
  it('serves each file, how to sign in, and 404 for anything else', () => {
    expect(servePage(get('/console'), files, local, 'A').body).toBe('<body data-node="A">');
    expect(servePage(get('/console/console.js'), files, local, 'A').body).toBe('js');
    expect(JSON.parse(servePage(get('/console/config.json'), files, local, 'A').body)).toEqual({ signIn: local });
    expect(servePage(get('/console/other'), files, local, 'A').statusCode).toBe(404);
  });
  it('answers a page that could not be built with a 503 problem that says why, and still how to sign in', () => {
    const failed = new Error('console/list.tsx:3: Expected ")"');
    for (const path of ['/console', '/console/', '/console/console.js', '/console/console.css']) {
      const res = servePage(get(path), failed, local, 'A');
      expect([res.statusCode, res.headers?.['content-type']], path).toEqual([503, 'application/problem+json']);
      expect(JSON.parse(res.body), path).toMatchObject({ code: 'console_unavailable', detail: failed.message });
    }
    expect(servePage(get('/console/config.json'), failed, local, 'A').statusCode).toBe(200);
    expect(servePage(get('/console/other'), failed, local, 'A').statusCode).toBe(404);
  });
});
