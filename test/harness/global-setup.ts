import '../../infra/local/start/quiet'; // the Node version note, once for the run (workers: vitest.config.ts)

// Nothing else is shared by the run: each test file starts its own emulators (test/harness/emulators.ts).
export default function setup() {}
