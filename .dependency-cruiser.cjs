// The layers of lib/ (CONTRIBUTING.md, "Layers"), checked by `npm run lint:deps` on lib/ and
// functions/, each rule broken on purpose by test/unit/layer-rules.test.ts. From the bottom up:
// - lib/shared/: the values every layer shares (amounts, ids, errors, the node's shape); imports
//   nothing else of ours.
// - lib/platform/: what runs the service on AWS (SDK clients, the store helpers, the unit of work
//   and its outbox, tracing, metrics, logs, queues, secrets, settings); imports shared only.
// - the domains (every other folder of lib/): the service's rules and their storage; import shared,
//   the platform (but not the settings, which only entry adapters read) and each other.
// - lib/api/: the adapters that face the outside (the HTTP stacks, the Open Payments resource
//   server, the Admin API's route table and OpenAPI document, the per-request context); and beside
//   lib/, the Lambda handlers (functions/) and the local run and deploy tools (infra/).
const SHARED = '^lib/shared/';
const PLATFORM = '^lib/platform/';
const API = '^lib/api/';
const OUTSIDE = '^(functions|infra)/';
const SETTINGS = '^lib/platform/config[.]ts$';
const DOMAIN = '^lib/(?!shared/|platform/|api/)';

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
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'The folders of lib/ form no cycle either, type-only imports included: each folder can be read, and moved, on top of those it uses.',
      scope: 'folder',
      from: { path: '^lib/' },
      to: { circular: true },
    },
    {
      name: 'shared-imports-only-shared',
      severity: 'error',
      comment: 'lib/shared/ holds plain values: it imports no platform, domain or adapter code.',
      from: { path: SHARED },
      to: { path: '^(lib|functions|infra)/', pathNot: SHARED },
    },
    {
      name: 'platform-imports-only-shared',
      severity: 'error',
      comment: 'lib/platform/ runs any domain and knows none: it imports only itself and lib/shared/.',
      from: { path: PLATFORM },
      to: { path: '^(lib|functions|infra)/', pathNot: `${PLATFORM}|${SHARED}` },
    },
    {
      name: 'domain-imports-no-adapter',
      severity: 'error',
      comment: 'A domain never imports an adapter (lib/api/, a handler, infra/), a type neither, nor the settings: it takes plain values, and the node.',
      from: { path: DOMAIN },
      to: { path: `${API}|${OUTSIDE}|${SETTINGS}` },
    },
    {
      name: 'api-imports-no-handler',
      severity: 'error',
      comment:
        "lib/api/ serves the handlers and the local run; it imports neither. (Under npm start the console's page is built on first use by the build script that packaging runs.)",
      from: { path: API },
      to: { path: OUTSIDE, pathNot: '^infra/esbuild/console-page[.]cjs$' },
    },
    {
      name: 'no-foreign-store',
      severity: 'error',
      comment:
        "A module reaches another domain through that domain's index, never its store.ts (dynamic imports too); a domain's own subfolders use its store; lib/platform/store.ts holds the helpers every store shares.",
      // $1: the module's domain folder (lib/<domain>/, for its subfolders too), else its top folder.
      from: { path: '^(lib/[^/]+/|[^/]+/)' },
      to: { path: '^lib/[^/]+/store[.]ts$', pathNot: '^$1store[.]ts$|^lib/platform/store[.]ts$' },
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
