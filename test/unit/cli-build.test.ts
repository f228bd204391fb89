import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';
import { documentRoutes } from '../../infra/local/tools/admin-routes';
import { buildCli } from '../../infra/local/tools/build-cli';
import { openApiDocument } from '../../lib/api/openapi';

// Issue 48: `npm run admin` compiled its TypeScript and built the OpenAPI document from its zod
// schemas on every call (0.85 CPU-s). It now runs a bundle built once (infra/local/tools/run.cjs),
// which holds the document's routes as data.
const { fresh } = createRequire(import.meta.url)('../../infra/local/tools/run.cjs') as { fresh: (dir: string, cli: string) => boolean };

describe('the CLI bundle', () => {
  it('runs under plain Node, without zod, and lists the routes of the OpenAPI document', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    const bundle = await buildCli('admin', dir);
    expect(readFileSync(bundle, 'utf8')).not.toContain('ZodError');
    const listed = execFileSync(process.execPath, [bundle, '--routes'], { cwd: ROOT, encoding: 'utf8' });
    expect(listed.trim().split('\n')).toEqual(documentRoutes(openApiDocument()).map((r) => `${r.method.padEnd(6)} ${r.path.padEnd(48)} ${r.summary}`));
    expect(fresh(dir, 'admin')).toBe(true);
  });

  it('is built again when a source differs from when it was built, or the clone moved', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cli-'));
    writeFileSync(join(dir, 'x.mjs'), '');
    const built = (sources: Record<string, number>, root = ROOT) => {
      writeFileSync(join(dir, 'x.json'), JSON.stringify({ root, sources }));
      return fresh(dir, 'x');
    };
    const mtime = statSync(join(ROOT, 'package.json')).mtimeMs;
    expect(built({ 'package.json': mtime })).toBe(true);
    expect(built({ 'package.json': mtime - 1 })).toBe(false);
    expect(built({ 'package.json': mtime, 'no/such/file.ts': mtime })).toBe(false);
    expect(built({ 'package.json': mtime }, '/elsewhere')).toBe(false);
  });
});
