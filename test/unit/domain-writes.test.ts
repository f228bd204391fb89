import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';

// A write that another domain's transaction needs is a named operation of the owning domain's index
// (`recordQuote` in lib/quotes, `activeForSending` in lib/wallet-addresses, `transfer` in
// lib/ledger), which decides its items: no index hands its store's write builders out as they are
// (CONTRIBUTING.md, "A service over its own store").
const domains = readdirSync(join(ROOT, 'lib')).filter((d) => existsSync(join(ROOT, 'lib', d, 'store.ts')) && existsSync(join(ROOT, 'lib', d, 'index.ts')));

// The names an index re-exports from its store (`export { a, type B, c as d } from './store'`).
const reexported = (index: string) =>
  [...index.matchAll(/export\s*\{([^}]*)\}\s*from\s*'\.\/store'/g)].flatMap((m) =>
    m[1]
      .split(',')
      .map(
        (s) =>
          s
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0],
      )
      .filter(Boolean),
  );

// Whether the store declares `name` as a function whose result is a Write (or Write[], or a promise
// of them): its signature, up to its body (` {` at a line's end), arrow or `;`, names Write as its result.
function buildsWrites(store: string, name: string): boolean {
  const at = store.search(new RegExp(`export (?:const ${name}\\s*=|(?:async )?function ${name}\\b)`));
  if (at < 0) return false;
  const signature = store.slice(at).split(/ \{\n|=>|;\n/)[0];
  return /\)\s*:\s*[^,;]*\bWrite\b/.test(signature);
}

describe('writes across domains', () => {
  it('finds the write builders it looks for', () => {
    const quotes = readFileSync(join(ROOT, 'lib/quotes/store.ts'), 'utf8');
    const payments = readFileSync(join(ROOT, 'lib/payments/store.ts'), 'utf8');
    const ledger = readFileSync(join(ROOT, 'lib/ledger/store.ts'), 'utf8');
    expect(['putQuote', 'quoteLookup'].filter((n) => buildsWrites(quotes, n))).toEqual(['putQuote']);
    expect(['insertPayment', 'transition', 'findPayment'].filter((n) => buildsWrites(payments, n))).toEqual(['insertPayment', 'transition']);
    expect(['transferItems', 'emptyAccountCheck', 'transferHistory'].filter((n) => buildsWrites(ledger, n))).toEqual(['transferItems', 'emptyAccountCheck']);
    expect(reexported("export { a, type B, c as d } from './store';")).toEqual(['a', 'B', 'c']);
  });

  it("go through the owning domain's named operations, never its store's builders re-exported", () => {
    expect(domains.length).toBeGreaterThan(10);
    const handedOut = domains.flatMap((d) => {
      const store = readFileSync(join(ROOT, 'lib', d, 'store.ts'), 'utf8');
      return reexported(readFileSync(join(ROOT, 'lib', d, 'index.ts'), 'utf8'))
        .filter((name) => buildsWrites(store, name))
        .map((name) => `lib/${d}/index.ts re-exports ${name}`);
    });
    expect(handedOut).toEqual([]);
  });
});
