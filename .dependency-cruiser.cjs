// The layer rules (CONTRIBUTING.md, "Layers"), checked by `npm run lint:deps` on lib/ and functions/.
// A domain is any module of lib/ that is not an adapter. The adapters face the outside: the Lambda
// handlers (functions/), the local run and the deploy tools (infra/), the HTTP stacks (lib/http/),
// the Open Payments resource server (lib/resource-server/), the Admin API's route table
// (lib/routes.ts), the OpenAPI document built from it (lib/openapi.ts), the settings, which only
// entry adapters read (lib/config.ts), and the per-request context they find (lib/context.ts).
const ADAPTERS = '^(functions|infra)/|^lib/(http|resource-server)/|^lib/(routes|openapi|config|context)[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'Modules of lib/ and functions/ form no cycle, through imports that exist at run time (a type-only import is erased).',
      from: { path: '^(lib|functions)/' },
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
    },
    {
      name: 'domain-imports-no-adapter',
      severity: 'error',
      comment:
        'Domain code never imports an adapter (a handler, infra/, lib/http, the resource server, the route table, the OpenAPI document) nor the settings or the context: it takes plain values, and the node.',
      from: { path: '^lib/', pathNot: ADAPTERS },
      to: { path: ADAPTERS },
    },
    {
      name: 'no-foreign-store',
      severity: 'error',
      comment:
        "A module reaches another domain through that domain's index, never its store.ts (dynamic imports too); a domain's own subfolders use its store; lib/store.ts holds the helpers every store shares.",
      // $1: the module's domain folder (lib/<domain>/, for its subfolders too), else its top folder.
      from: { path: '^(lib/[^/]+/|[^/]+/)' },
      to: { path: '^lib/[^/]+/store[.]ts$', pathNot: '^$1store[.]ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type-only imports are seen (a domain naming an HTTP type knows HTTP), and told apart.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
