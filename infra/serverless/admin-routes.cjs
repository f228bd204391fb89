'use strict';

const path = require('node:path');
const { require: tsRequire } = require('tsx/cjs/api');

// The Admin API's functions and their roles, made from the routes' declarations (lib/api/routes/,
// TypeScript, loaded with tsx): each route's function with its handler, its `http` event and its
// role, and each role's access. serverless.yml takes them as
// `${file(infra/serverless/admin-routes.cjs):functions}` and `:roles` (into custom.roles); the local
// run reads serverless.yml the same way (infra/local/start/serverless-config.ts).
const ROUTES = path.join(__dirname, '..', '..', 'lib', 'api', 'routes');

// The role of /graphql's function (lib/api/graphql/routes.ts): each action the roles of the routes
// it stands in for allow, on each resource.
function unionRole(allRoutes, adminRoles, ids, extra = {}) {
  const role = {};
  for (const [resource, actions] of Object.entries(extra)) role[resource] = [...actions];
  for (const id of ids) {
    const route = allRoutes.find((r) => r.id === id);
    if (!route) throw new Error(`lib/api/graphql/routes.ts: no route ${id}`);
    for (const [resource, actions] of Object.entries(adminRoles[route.role])) {
      role[resource] = [...new Set([...(role[resource] ?? []), ...actions])].sort();
    }
  }
  return role;
}

function adminRoutes(allRoutes, adminRoles, graphqlRouteIds = [], graphqlExtraAccess = {}) {
  const functions = {};
  const problems = [];
  for (const route of allRoutes) {
    if (functions[route.functionName]) problems.push(`${route.id}: its function ${route.functionName} serves another route too`);
    if (!adminRoles[route.role]) problems.push(`${route.id}: its role ${route.role} is declared nowhere (lib/api/routes/roles.ts, or its tag's roles)`);
    functions[route.functionName] = {
      role: route.role,
      handler: `functions/admin/${route.handler}.handler`,
      events: [{ http: { method: route.method.toUpperCase(), path: route.path } }],
    };
  }
  const used = new Set(allRoutes.map((r) => r.role));
  for (const name of Object.keys(adminRoles)) if (!used.has(name)) problems.push(`${name}: no route's function has this role`);
  if (problems.length) throw new Error(`lib/api/routes:\n  ${problems.join('\n  ')}`);
  const roles = Object.fromEntries(
    Object.entries(adminRoles).map(([name, access]) => [
      name,
      Object.fromEntries(Object.entries(access).map(([resource, actions]) => [resource, [...actions]])),
    ]),
  );
  if (graphqlRouteIds.length) roles.AdminGraphqlRole = unionRole(allRoutes, adminRoles, graphqlRouteIds, graphqlExtraAccess);
  return { functions, roles };
}

let made;
module.exports = () => {
  made ??= adminRoutes(
    tsRequire(path.join(ROUTES, 'index.ts'), __filename).allRoutes,
    tsRequire(path.join(ROUTES, 'access.ts'), __filename).adminRoles,
    ...(({ graphqlRouteIds, graphqlExtraAccess }) => [graphqlRouteIds, graphqlExtraAccess])(
      tsRequire(path.join(ROUTES, '..', 'graphql', 'routes.ts'), __filename),
    ),
  );
  return made;
};
module.exports.adminRoutes = adminRoutes;
