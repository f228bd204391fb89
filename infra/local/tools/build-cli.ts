import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Plugin } from 'esbuild';
import { openApiDocument } from '../../../lib/api/openapi';
import { ROOT } from '../start/serverless-config';
import { documentRoutes } from './admin-routes';

// The local CLIs (`npm run admin`, `operator`, `reset`, `bruno`), each bundled once by
// esbuild into .local/cli/<name>.mjs, which ./run.cjs runs: a call then compiles no TypeScript and
// loads one file (`npm run admin` costs 0.3 CPU-s a call, most of it npm's own, against 1.1 under tsx). ./run.cjs builds a
// CLI when its bundle is missing or any of its sources differs from when it was built: .local/cli/<name>.json
// lists each with its mtime.
export const CLIS = {
  admin: 'infra/local/tools/admin.ts',
  operator: 'infra/local/tools/operator.ts',
  reset: 'infra/local/tools/reset.ts',
  bruno: 'infra/local/tools/bruno.ts',
};
// (Not `npm run redrive`: it runs the service's functions in its own process, from their TypeScript, under tsx.)
export type Cli = keyof typeof CLIS;
export const CLI_DIR = join(ROOT, '.local', 'cli');

// Each source file keeps its own import.meta (ROOT, and the packages it resolves, are found from it), as under tsx.
const ownImportMeta: Plugin = {
  name: 'own-import-meta',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, ({ path }) => {
      const text = readFileSync(path, 'utf8')
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href))
        .replaceAll('import.meta.dirname', JSON.stringify(dirname(path)));
      return { contents: text, loader: 'ts' };
    });
  },
};

// The CLI checks a METHOD and path against the OpenAPI document's routes alone: it gets them as data,
// not the zod schemas the document is made from (their import and conversion were most of a call).
const OPENAPI = join(ROOT, 'lib/api/openapi.ts');
const routesOnly: Plugin = {
  name: 'openapi-routes-only',
  setup(b) {
    b.onResolve({ filter: /\/lib\/api\/openapi$/ }, ({ path, resolveDir }) =>
      resolve(resolveDir, `${path}.ts`) === OPENAPI ? { path: OPENAPI, namespace: 'openapi-routes' } : undefined,
    );
    b.onLoad({ filter: /.*/, namespace: 'openapi-routes' }, () => {
      const paths: Record<string, Record<string, { summary: string }>> = {};
      for (const r of documentRoutes(openApiDocument())) paths[r.path] = { ...paths[r.path], [r.method.toLowerCase()]: { summary: r.summary } };
      return { contents: `export const openApiDocument = () => (${JSON.stringify({ paths })});`, loader: 'js' };
    });
  },
};

// The files a bundle was made from, each with its mtime (relative to ROOT, so that a moved clone rebuilds):
// the project's own, and for the packages package-lock.json, which says what node_modules holds.
const sourcesOf = (inputs: string[]) =>
  Object.fromEntries(
    inputs.filter((f) => !f.includes(':') && !f.includes('node_modules/')).map((f) => [relative(ROOT, resolve(ROOT, f)), statSync(resolve(ROOT, f)).mtimeMs]),
  );

// Builds one CLI into `dir`; written under other names first, then renamed: two calls that build at
// once each leave a whole bundle.
export async function buildCli(cli: Cli, dir = CLI_DIR): Promise<string> {
  const common = { absWorkingDir: ROOT, bundle: true, platform: 'node', format: 'esm', target: 'node20', metafile: true, write: false } as const;
  const result = await build({
    ...common,
    entryPoints: [CLIS[cli]],
    plugins: cli === 'admin' ? [routesOnly, ownImportMeta] : [ownImportMeta],
    // The CommonJS packages bundled here call require() for Node's modules.
    banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    logLevel: 'warning',
  });
  const inputs = Object.keys(result.metafile.inputs);
  // What the routes were read from, though the bundle holds only the routes.
  if (cli === 'admin') {
    const doc = await build({ ...common, entryPoints: [OPENAPI], packages: 'external', logLevel: 'silent' });
    inputs.push(...Object.keys(doc.metafile.inputs));
  }
  inputs.push(relative(ROOT, new URL(import.meta.url).pathname), 'package-lock.json');
  mkdirSync(dir, { recursive: true });
  const out = join(dir, `${cli}.mjs`);
  const write = (file: string, text: string | Uint8Array) => {
    writeFileSync(`${file}.${process.pid}`, text);
    renameSync(`${file}.${process.pid}`, file);
  };
  write(out, result.outputFiles[0].contents);
  write(join(dir, `${cli}.json`), JSON.stringify({ root: ROOT, sources: sourcesOf(inputs) }));
  return out;
}

// `node --import tsx infra/local/tools/build-cli.ts [name...]` (./run.cjs runs it): builds those CLIs, or all.
if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const names = process.argv.slice(2);
  for (const cli of names.length ? names : Object.keys(CLIS)) {
    if (!Object.hasOwn(CLIS, cli)) {
      console.error(`No CLI ${cli}: ${Object.keys(CLIS).join(', ')}`);
      process.exit(2);
    }
    await buildCli(cli as Cli);
  }
}
