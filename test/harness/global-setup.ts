import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import '../../infra/local/start/quiet'; // the Node version note, once for the run (workers: vitest.config.ts)

declare module 'vitest' {
  export interface ProvidedContext {
    packageFolder: string;
  }
}

// Each test file starts its own emulators (test/harness/emulators.ts). The run shares one thing: a
// folder for the package tests' `serverless package` (test/tooling/package/packaged.ts), so that the
// production template is packaged once for all of them, apart from any other run's, and removed after.
export default function setup(project: TestProject) {
  const folder = mkdtempSync(join(tmpdir(), 'sls-package-'));
  project.provide('packageFolder', folder);
  return () => rmSync(folder, { recursive: true, force: true });
}
