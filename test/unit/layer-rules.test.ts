import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { cruise, type IConfiguration } from 'dependency-cruiser';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';

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
  it('refuse an import cycle, and let a cycle of type-only imports within a folder be', async () => {
    expect(
      await violations({
        'lib/ledger/index.ts': "import { p } from '../payments';\nexport const l = p;\n",
        'lib/payments/index.ts': "import { l } from '../ledger';\nexport const p = 1;\nexport const q = () => l;\n",
      }),
    ).toEqual([
      'no-cycle: lib/ledger/index.ts -> lib/payments/index.ts', // (reported once, from where it was found)
      'no-folder-cycle: lib/ledger -> lib/payments',
      'no-folder-cycle: lib/payments -> lib/ledger',
    ]);
    expect(
      await violations({
        'lib/ledger/index.ts': "import type { P } from './rules';\nexport type L = { p?: P };\n",
        'lib/ledger/rules.ts': "import type { L } from './index';\nexport type P = { l?: L };\n",
      }),
    ).toEqual([]);
  });

  it('refuse a domain importing lib/api/, a handler or the settings, a type too, and let an adapter import either', async () => {
    expect(
      await violations({
        'lib/api/http/schemas.ts': 'export const h = 1;\nexport type H = number;\n',
        'lib/platform/config.ts': 'export const config = 1;\n',
        'functions/assets/get.ts': "import { a } from '../../lib/assets';\nimport { h } from '../../lib/api/http/schemas';\nexport const handler = a + h;\n",
        'lib/assets/index.ts': "import type { H } from '../api/http/schemas';\nexport const a: H = 1;\n",
        'lib/peers/index.ts': "export const handler = () => import('../../functions/assets/get');\n",
        'lib/rates/index.ts': "import { config } from '../platform/config';\nexport const r = config;\n",
      }),
    ).toEqual([
      'domain-imports-no-adapter: lib/assets/index.ts -> lib/api/http/schemas.ts',
      'domain-imports-no-adapter: lib/peers/index.ts -> functions/assets/get.ts',
      'domain-imports-no-adapter: lib/rates/index.ts -> lib/platform/config.ts',
    ]);
  });

  it('refuse shared values importing anything else of ours, and the platform importing a domain or an adapter', async () => {
    expect(
      await violations({
        'lib/shared/values.ts': "import { t } from '../platform/tx';\nexport const v = t;\n",
        'lib/shared/node.ts': "import type { P } from '../peers';\nexport type N = { p?: P };\n",
        'lib/platform/tx.ts': 'export const t = 1;\n',
        'lib/platform/context.ts': "import { p } from '../peers';\nexport const c = p;\n",
        'lib/platform/log.ts': "import { h } from '../api/http/schemas';\nexport const l = h;\n",
        'lib/api/http/schemas.ts': 'export const h = 1;\n',
        'lib/peers/index.ts': 'export type P = number;\nexport const p = 1;\n',
      }),
    ).toEqual([
      'platform-imports-only-shared: lib/platform/context.ts -> lib/peers/index.ts',
      'platform-imports-only-shared: lib/platform/log.ts -> lib/api/http/schemas.ts',
      'shared-imports-only-shared: lib/shared/node.ts -> lib/peers/index.ts',
      'shared-imports-only-shared: lib/shared/values.ts -> lib/platform/tx.ts',
    ]);
  });

  it('refuse lib/api/ importing a handler', async () => {
    expect(
      await violations({
        'functions/assets/get.ts': 'export const handler = 1;\n',
        'lib/api/routes.ts': "export const r = 1;\nexport const h = () => import('../../functions/assets/get');\n",
      }),
    ).toEqual(['api-imports-no-handler: lib/api/routes.ts -> functions/assets/get.ts']);
  });

  it('refuse a loop between folders that no single file closes, through type-only imports too', async () => {
    expect(
      await violations({
        'lib/assets/rules.ts': "import type { W } from '../wallet-addresses/schemas';\nexport type A = { w?: W };\n",
        'lib/assets/schemas.ts': 'export type S = string;\n',
        'lib/wallet-addresses/schemas.ts': 'export type W = string;\n',
        'lib/wallet-addresses/index.ts': "import type { S } from '../assets/schemas';\nexport type X = S;\n",
      }),
    ).toEqual(['no-folder-cycle: lib/assets -> lib/wallet-addresses', 'no-folder-cycle: lib/wallet-addresses -> lib/assets']);
  });

  it("refuse another domain's store, by a dynamic import too, and let a domain (its subfolders too) use its own and lib/platform/store.ts", async () => {
    expect(
      await violations({
        'lib/platform/store.ts': 'export const shared = 1;\n',
        'lib/quotes/store.ts': "import { shared } from '../platform/store';\nexport const put = shared;\n",
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
