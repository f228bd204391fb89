import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type IConfiguration } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/serverless-config';

// The layer rules of .dependency-cruiser.cjs, each broken on purpose in a made-up tree (in a
// temporary folder), so that a rule that could no longer fail is seen: `npm run lint:deps` runs
// the same rules on the real tree.
const { forbidden } = createRequire(import.meta.url)(join(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;
const tree = mkdtempSync(join(tmpdir(), 'layers-'));
afterAll(() => rmSync(tree, { recursive: true, force: true }));

async function violations(files: Record<string, string>): Promise<string[]> {
  const dir = mkdtempSync(join(tree, 'case-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const { output } = await cruise(
    ['lib', 'functions'].filter((d) => Object.keys(files).some((p) => p.startsWith(`${d}/`))),
    {
      baseDir: dir,
      ruleSet: { forbidden },
      tsPreCompilationDeps: true,
      validate: true,
    },
    { extensions: ['.ts'] },
  );
  if (typeof output === 'string') throw new Error(output);
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('the layer rules', () => {
  it('refuse an import cycle, and let a cycle of type-only imports be', async () => {
    expect(
      await violations({
        'lib/ledger/index.ts': "import { p } from '../payments';\nexport const l = p;\n",
        'lib/payments/index.ts': "import { l } from '../ledger';\nexport const p = 1;\nexport const q = () => l;\n",
      }),
    ).toEqual(['no-cycle: lib/ledger/index.ts -> lib/payments/index.ts']); // (reported once, from where it was found)
    expect(
      await violations({
        'lib/ledger/index.ts': "import type { P } from '../payments';\nexport type L = { p?: P };\n",
        'lib/payments/index.ts': "import type { L } from '../ledger';\nexport type P = { l?: L };\n",
      }),
    ).toEqual([]);
  });

  it('refuse a domain importing lib/http or a handler, a type too, and let an adapter import either', async () => {
    expect(
      await violations({
        'lib/http/schemas.ts': 'export const h = 1;\nexport type H = number;\n',
        'functions/assets/get.ts': "import { a } from '../../lib/assets';\nimport { h } from '../../lib/http/schemas';\nexport const handler = a + h;\n",
        'lib/assets/index.ts': "import type { H } from '../http/schemas';\nexport const a: H = 1;\n",
        'lib/peers/index.ts': "export const handler = () => import('../../functions/assets/get');\n",
      }),
    ).toEqual([
      'domain-imports-no-adapter: lib/assets/index.ts -> lib/http/schemas.ts',
      'domain-imports-no-adapter: lib/peers/index.ts -> functions/assets/get.ts',
    ]);
  });

  it("refuse another domain's store, by a dynamic import too, and let a domain (its subfolders too) use its own and lib/store.ts", async () => {
    expect(
      await violations({
        'lib/store.ts': 'export const shared = 1;\n',
        'lib/quotes/store.ts': "import { shared } from '../store';\nexport const put = shared;\n",
        'lib/quotes/index.ts': "import { put } from './store';\nexport const quote = put;\n",
        'lib/quotes/methods/local.ts': "import { put } from '../store';\nexport const local = put;\n",
        'lib/payments/index.ts': "export const take = () => import('../quotes/store');\n",
        'lib/payments/methods/ilp.ts': "import { put } from '../../quotes/store';\nexport const ilp = put;\n",
        'functions/quotes/get.ts': "import { put } from '../../lib/quotes/store';\nexport const handler = put;\n",
      }),
    ).toEqual([
      'no-foreign-store: functions/quotes/get.ts -> lib/quotes/store.ts',
      'no-foreign-store: lib/payments/index.ts -> lib/quotes/store.ts',
      'no-foreign-store: lib/payments/methods/ilp.ts -> lib/quotes/store.ts',
    ]);
  });
});
