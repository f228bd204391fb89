// The Admin routes' handlers (functions/admin/<handler>.ts) that their declarations make: a route
// whose declaration names its domain operation (`operation`, lib/api/routes/route.ts) is served by
// `adminRoute(routes.<id>, …)` calling that operation with the node, then the path's fields, the body
// and the query, as the route has them. `npx tsx infra/route-handlers.ts` writes them again after a
// declaration changed; test/unit/route-handlers.test.ts checks that each is as its declaration makes it.
// (One file a function: each bundle holds its own route's operation only, which its role allows.)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { allRoutes, type Route } from '../lib/api/routes';

export const ROOT = join(import.meta.dirname, '..');
export const handlerFile = (route: Route) => `functions/admin/${route.handler}.ts`;
// The file a route is declared in: its tag's.
export const declarationFile = (route: Route) => `lib/api/routes/${route.tag.toLowerCase().replace(/ /g, '-')}.ts`;

// What a declared route's handler file holds (undefined: its declaration names no operation, and its
// handler is written by hand).
export function handlerSource(route: Route): string | undefined {
  if (!route.operation) return undefined;
  const { domain, name } = route.operation;
  const up = '../'.repeat(route.handler.split('/').length + 1);
  const params = route.params ? Object.keys(route.params.shape).map((field) => `params.${field}`) : [];
  const inputs = [...(route.params ? ['params'] : []), ...(route.body ? ['body'] : []), ...(route.query ? ['query'] : []), 'node'];
  const args = ['node', ...params, ...(route.body ? ['body'] : []), ...(route.query ? ['query'] : [])];
  return [
    `// Made from its route's declaration (${route.id}, ${declarationFile(route)}) by infra/route-handlers.ts: change that, not this.`,
    `import { adminRoute } from '${up}lib/api/http/admin';`,
    `import { routes } from '${up}lib/api/routes';`,
    `import { ${name} } from '${up}lib/${domain}';`,
    '',
    `export const handler = adminRoute(routes.${route.id}, ({ ${inputs.join(', ')} }) => ${name}(${args.join(', ')}));`,
    '',
  ].join('\n');
}

// The declared handlers that are not as their declarations make them.
export const staleHandlers = () =>
  allRoutes.filter((route) => {
    const source = handlerSource(route);
    if (source === undefined) return false;
    try {
      return readFileSync(join(ROOT, handlerFile(route)), 'utf8') !== source;
    } catch {
      return true;
    }
  });

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const route of staleHandlers()) {
    mkdirSync(dirname(join(ROOT, handlerFile(route))), { recursive: true }); // a new tag's folder
    writeFileSync(join(ROOT, handlerFile(route)), handlerSource(route)!);
    console.log(`${handlerFile(route)}: ${route.method.toUpperCase()} ${route.path}`);
  }
}
