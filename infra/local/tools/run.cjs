'use strict';

// `node infra/local/tools/run.cjs <cli> [args...]` (`npm run admin`, `operator`, `reset`, `bruno`): runs
// the CLI from its bundle in .local/cli/ (./build-cli.ts), built first when it is missing or any of its
// sources changed since (a fresh clone's first call, a pull, an edit): a call compiles no TypeScript.
// Plain JavaScript, as it runs before anything is built.
const { spawnSync } = require('node:child_process');
const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const ROOT = join(__dirname, '..', '..', '..');

// Whether the bundle in `dir` was built here from the sources as they are.
function fresh(dir, cli) {
  try {
    const { root, sources } = JSON.parse(readFileSync(join(dir, `${cli}.json`), 'utf8'));
    statSync(join(dir, `${cli}.mjs`));
    return root === ROOT && Object.entries(sources).every(([file, mtime]) => statSync(join(ROOT, file)).mtimeMs === mtime);
  } catch {
    return false; // no bundle, or a source gone
  }
}

async function main() {
  const cli = process.argv[2];
  const dir = join(ROOT, '.local', 'cli');
  if (!fresh(dir, cli)) {
    // Anything it prints goes to stderr: the CLI's stdout may be a shell variable's value.
    const built = spawnSync(process.execPath, ['--import', 'tsx', join(__dirname, 'build-cli.ts'), cli], { cwd: ROOT, stdio: ['ignore', 2, 2] });
    if (built.status !== 0) process.exit(built.status ?? 1);
  }
  process.argv.splice(2, 1); // the CLI reads its own arguments from argv[2] on, as when run itself
  await import(pathToFileURL(join(dir, `${cli}.mjs`)).href);
}

if (require.main === module) main();
module.exports = { fresh };
