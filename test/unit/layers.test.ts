import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';

// The layout rules that no import graph shows, checked on the source. Who imports whom (no cycle,
// no domain importing an adapter, no module reaching another domain's store) is
// dependency-cruiser's (`npm run lint:deps`, .dependency-cruiser.cjs), and process.env outside
// lib/platform/config.ts is Biome's (noProcessEnv): see CONTRIBUTING.md, "Layers".
const filesUnder = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : /\.tsx?$/.test(p) ? [p] : [];
  });
const source = (p: string) => readFileSync(p, 'utf8');
const rel = (p: string) => relative(ROOT, p);

// A DynamoDB expression or table name in a request, or an item's key attributes.
const STORAGE =
  /\b(KeyConditionExpression|ConditionExpression|UpdateExpression|FilterExpression|ProjectionExpression|ExpressionAttributeNames|TableName|IndexName)\b|\b(pk|sk)\s*:/;
// Where storage may be spelled: a domain's store, the helpers every store shares, the unit of work
// (its outbox items), and the SDK clients' middleware, which reads a call's table name for its trace.
const mayHoldStorage = (p: string) => p.endsWith('/store.ts') || ['lib/platform/store.ts', 'lib/platform/tx.ts', 'lib/platform/aws.ts'].includes(p);

describe('the layout rules', () => {
  const code = [...filesUnder(join(ROOT, 'lib')), ...filesUnder(join(ROOT, 'functions'))];

  it('builds DynamoDB keys and expressions only in store.ts files and the unit of work', () => {
    const builders = code.filter((p) => STORAGE.test(source(p))).map(rel);
    expect(builders.length).toBeGreaterThan(10); // the stores themselves: the pattern finds storage
    expect(builders.filter((p) => !mayHoldStorage(p))).toEqual([]);
  });

  it('tells storage from other code', () => {
    for (const spelled of ["FilterExpression: '#s = :s'", 'Key: { pk: id, sk: "A" }', 'TableName: node.tables.main'])
      expect(STORAGE.test(spelled), spelled).toBe(true);
    for (const plain of ['const filter = expression;', 'pkg: 1', 'task: 2']) expect(STORAGE.test(plain), plain).toBe(false);
    expect(['lib/payments/store.ts', 'lib/platform/tx.ts'].every(mayHoldStorage)).toBe(true);
    expect(['lib/payments/index.ts', 'functions/admin/payments/list.ts'].some(mayHoldStorage)).toBe(false);
  });

  it('signs Admin requests in one client', () => {
    // Everything but the signature's own tests, which sign with other secrets on purpose.
    const own = ['test/unit/signature.test.ts', 'test/integration/auth.test.ts', 'test/unit/layers.test.ts'];
    const everything = ['lib', 'functions', 'infra', 'bench', 'console', 'test'].flatMap((d) => filesUnder(join(ROOT, d)));
    const signers = everything
      .map(rel)
      .filter((p) => !own.includes(p) && /\b(signatureHeader|computeSignature)\b/.test(source(join(ROOT, p))))
      .sort();
    expect(signers).toEqual(['infra/local/tools/admin-client.ts', 'lib/api/http/signature.ts']);
  });
});
