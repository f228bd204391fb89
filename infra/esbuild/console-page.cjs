'use strict';

const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { build } = require('esbuild');

// The console's page (console/): its HTML, and its script and style sheet bundled and minified
// (Preact, uPlot and the console's own code). Under npm start the console's function builds it
// when it first serves it (lib/api/http/console-page.ts); at packaging, the plugin below builds it once
// and puts it in the function's bundle in that module's place, so that Lambda builds nothing.
const ROOT = join(__dirname, '..', '..');
const SOURCE = join(ROOT, 'console');
const PAGE_MODULE = /[\\/]lib[\\/]api[\\/]http[\\/]console-page\.ts$/;

async function buildConsolePage() {
  const { outputFiles } = await build({
    entryPoints: [join(SOURCE, 'main.tsx')],
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: 'out',
    logLevel: 'silent',
  });
  const text = (ext) => outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { html: readFileSync(join(SOURCE, 'index.html'), 'utf8'), js: text('.js'), css: text('.css') };
}

const consolePagePlugin = {
  name: 'console-page',
  setup(esbuild) {
    let built;
    esbuild.onLoad({ filter: PAGE_MODULE }, async () => {
      built ??= buildConsolePage();
      return { contents: `export const pageFiles = async () => (${JSON.stringify(await built)});`, loader: 'js' };
    });
  },
};

module.exports = { buildConsolePage, consolePagePlugin };
