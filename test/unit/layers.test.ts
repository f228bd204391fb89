import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/serverless-config';

// The rules CONTRIBUTING states for the code's layout, checked on the source, so that they stay
// true: settings are read at the entry adapters, storage stays in stores, domains meet through
// their index, lib/ has no cycle between its directories, and there is one Admin client.
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : p.endsWith('.ts') ? [p] : [];
  });
const lib = join(ROOT, 'lib');
const source = (p: string) => readFileSync(p, 'utf8');
const rel = (p: string) => relative(ROOT, p);
// Runtime imports (type-only imports carry no dependency), resolved to files.
const importsOf = (p: string) =>
  [...source(p).matchAll(/^import\s+(?!type\s)[^'"]*?from\s+'(\.[^']+)'/gm)].map((m) => {
    const target = resolve(dirname(p), m[1]);
    return target.endsWith('.ts') ? target : `${target}.ts`;
  });
// A file's unit: its directory under lib/, or the file itself at lib/'s top.
const unitOf = (p: string) => {
  const r = relative(lib, p);
  return r.includes('/') ? r.split('/')[0] : r;
};

describe('the layout rules', () => {
  const libFiles = filesUnder(lib);

  it('reads settings only in lib/config.ts and the entry adapters (functions/, lib/http)', () => {
    const readers = libFiles.filter((p) => importsOf(p).some((t) => t === join(lib, 'config.ts'))).map(rel);
    expect(readers.filter((p) => !p.startsWith('lib/http/'))).toEqual([]);
  });

  it('builds DynamoDB keys and expressions only in store.ts files and the unit of work', () => {
    const builders = libFiles.filter((p) => /\b(ConditionExpression|UpdateExpression|KeyConditionExpression|TableName)\b/.test(source(p))).map(rel);
    // (lib/aws.ts, the SDK clients' one middleware, reads a call's table name for its trace.)
    const allowed = (p: string) => p.endsWith('/store.ts') || p === 'lib/store.ts' || p === 'lib/tx.ts' || p === 'lib/aws.ts';
    expect(builders.filter((p) => !allowed(p))).toEqual([]);
  });

  it('uses another domain through its index, never its store (lib/store.ts holds the helpers every store shares)', () => {
    const reaches = libFiles.flatMap((p) =>
      importsOf(p)
        .filter((t) => t.endsWith('/store.ts') && t !== join(lib, 'store.ts') && unitOf(t) !== unitOf(p))
        .map((t) => `${rel(p)} -> ${rel(t)}`),
    );
    expect(reaches).toEqual([]);
  });

  it('has no cycle between the directories of lib/', () => {
    const edges = new Map<string, Set<string>>();
    for (const p of libFiles)
      for (const t of importsOf(p).filter((t) => t.startsWith(lib) && unitOf(t) !== unitOf(p))) {
        if (!edges.has(unitOf(p))) edges.set(unitOf(p), new Set());
        edges.get(unitOf(p))!.add(unitOf(t));
      }
    const reach = (from: string) => {
      const seen = new Set<string>();
      const todo = [from];
      while (todo.length) for (const n of edges.get(todo.pop()!) ?? []) if (!seen.has(n) && seen.add(n)) todo.push(n);
      return seen;
    };
    const cycles = [...edges.keys()].filter((u) => reach(u).has(u));
    expect(cycles).toEqual([]);
  });

  it('signs Admin requests in one client', () => {
    const signers = [...filesUnder(join(ROOT, 'infra')), ...filesUnder(join(ROOT, 'bench')), join(ROOT, 'test/stack.ts'), ...libFiles]
      .filter((p) => /\bsignatureHeader\b/.test(source(p)))
      .map(rel);
    expect(signers.sort()).toEqual(['infra/local/admin-client.ts', 'lib/http/signature.ts']);
  });
});
