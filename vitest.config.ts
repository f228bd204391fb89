import { defineConfig } from 'vitest/config';

// Two projects: unit tests (pure logic) start nothing, so one runs in about a second
// (`npm test -- test/unit/amounts.test.ts`); each integration test file starts emulators of its
// own when it first needs them, and the setup file stops them after it (test/harness/emulators.ts).
export default defineConfig({
  // graphql ships CommonJS (its `main`) and ES modules (its `module`): Node, and so every library
  // that imports it (@graphql-tools, graphql-armor), loads the first, Vite the second for our
  // sources; two copies refuse each other's schemas. One copy, as the Lambda bundles have it.
  resolve: { alias: [{ find: /^graphql$/, replacement: 'graphql/index.js' }] },
  test: {
    // Two files at a time, even on two cores (vitest's default would be one): an integration file
    // mostly waits (on its emulators, processes it starts, packets' expiries), and each has
    // emulators of its own. Measured on 2 cores: 9 min 55 s, against 15 min 52 s one by one.
    maxWorkers: 2,
    // Backstops, not clocks: a test waits on its conditions (test/harness/wait.ts), and these only end one
    // whose condition never comes. Two whole runs at once on a 2-core machine (load 6 to 20) take
    // a test many times its quiet time, so no limit sits where load can reach it.
    testTimeout: 600_000,
    hookTimeout: 600_000,
    // The AWS SDK's Node version warning would come once per test file: the global setup says it once.
    env: { POWERTOOLS_LOG_LEVEL: 'SILENT', POWERTOOLS_METRICS_DISABLED: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    projects: [
      // Pure logic: its files share their worker's modules (not isolated), which saves each file a
      // process and the loading of its imports (the unit files' CPU: 76 -> 50 CPU-s measured). The
      // services' files call the domains' operations, whose caches are a Lambda container's and
      // outlive a file's in-memory database: each runs in a process of its own.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], exclude: ['test/unit/services/**'], isolate: false } },
      { extends: true, test: { name: 'unit-services', include: ['test/unit/services/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/tooling/**/*.test.ts'],
          globalSetup: ['test/harness/global-setup.ts'],
          setupFiles: ['test/harness/setup-file.ts'],
        },
      },
    ],
  },
});
