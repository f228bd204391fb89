// The API collection in bruno/ (infra/local/tools/bruno-collection.ts reads it), and Bruno's own
// runner on it.

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../infra/local/start/serverless-config';

export * from '../../infra/local/tools/bruno-collection';

// `bru run <args>` in a collection folder, as a user runs it, with these environment variables
// set: its exit status, what it printed, and its JSON report (summary and one result a request).
export async function bru(dir: string, args: string[], vars: Record<string, string>) {
  const report = join(mkdtempSync(join(tmpdir(), 'bru-')), 'report.json');
  const env = Object.entries(vars).flatMap(([name, value]) => ['--env-var', `${name}=${value}`]);
  const run = await promisify(execFile)(join(ROOT, 'node_modules/.bin/bru'), ['run', ...args, ...env, '--reporter-json', report], { cwd: dir }).then(
    (r) => ({ code: 0, output: r.stdout + r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, output: e.stdout + e.stderr }),
  );
  const [{ summary, results }] = JSON.parse(readFileSync(report, 'utf8'));
  return { ...run, summary, results: results as Array<{ test: { filename: string }; assertionResults: Array<{ status: string; error?: string }> }> };
}

// The assertions a run failed, as "<file>: <why>".
export const failures = (run: Awaited<ReturnType<typeof bru>>) =>
  run.results.flatMap((r) => r.assertionResults.filter((a) => a.status !== 'pass').map((a) => `${r.test.filename}: ${a.error}`));
