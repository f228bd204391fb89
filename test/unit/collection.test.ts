import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODES } from '../../infra/local/start/defaults';
import { nodePrefix } from '../../infra/local/tools/proxy';
import { openApiDocument } from '../../lib/api/openapi';
import { COLLECTION, routeKey as key, loadEnvironment, loadRequests, parseBru, routeOf, signedOperations, variablesOf } from '../readers/bruno';

// The API collection (bruno/) against the Admin API's OpenAPI document: a route without a request (`npm
// run bruno` writes one), a request for a route that does not exist or outside its route's tag folder,
// fails here; so does a request Bruno could not send.
const requests = loadRequests();
const environments = Object.fromEntries(['node-a', 'node-b', 'node-c'].map((name) => [name, loadEnvironment(name)]));

describe('the API collection', () => {
  it('is a Bruno collection', () => {
    expect(JSON.parse(readFileSync(join(COLLECTION, 'bruno.json'), 'utf8'))).toMatchObject({ version: '1', type: 'collection' });
    expect(parseBru(readFileSync(join(COLLECTION, 'collection.bru'), 'utf8')).get('docs')).toContain('npm start');
  });

  it("has a request for every signed operation of the OpenAPI document, in its tag's folder, and none for a route it lacks", () => {
    const routes = new Map(signedOperations(openApiDocument()).map((r) => [key(r.method, r.path), r]));
    const covered = new Set(requests.map((r) => key(r.method, routeOf(r.url))));
    expect
      .soft(
        [...routes.keys()].filter((r) => !covered.has(r)),
        'routes without a request (npm run bruno writes one)',
      )
      .toEqual([]);
    const strays = requests.filter((r) => !routes.has(key(r.method, routeOf(r.url))));
    expect
      .soft(
        strays.map((r) => `${r.file}: ${r.method} ${r.url}`),
        'requests for no route',
      )
      .toEqual([]);
    const misplaced = requests.filter((r) => {
      const route = routes.get(key(r.method, routeOf(r.url)));
      return route && route.tag !== r.folder.name;
    });
    expect
      .soft(
        misplaced.map((r) => `${r.file}: in ${r.folder.name}`),
        "requests outside their route's tag folder",
      )
      .toEqual([]);
  });

  it('has requests Bruno can send: named, numbered, unsigned, to {{baseUrl}}, with JSON bodies', () => {
    const seqs = new Map<string, string[]>();
    for (const r of requests) {
      const seq = expect.stringMatching(/^[1-9]\d*$/);
      expect(r.meta, r.file).toMatchObject({ name: expect.stringMatching(/\S/), type: 'http', seq });
      const url = expect.stringMatching(/^\{\{baseUrl\}\}\//);
      expect(r.blocks.get(r.method.toLowerCase()), r.file).toEqual({ url, body: r.body === undefined ? 'none' : 'json', auth: 'none' });
      if (r.body !== undefined) expect(() => JSON.parse(r.body!), r.file).not.toThrow();
      expect(
        Object.keys(r.headers).map((h) => h.toLowerCase()),
        `${r.file}: the proxy signs`,
      ).not.toContain('signature');
      seqs.set(r.folder.name, [...(seqs.get(r.folder.name) ?? []), r.meta.seq]);
    }
    for (const [folder, list] of seqs) expect(new Set(list).size, `seq repeated in ${folder}`).toBe(list.length);
    const folders = [...new Map(requests.map((r) => [r.folder.name, r.folder.seq])).values()];
    expect(new Set(folders).size, 'folder seq repeated').toBe(folders.length);
  });

  it('lists each query parameter of a URL in its params:query block too, as the Bruno app does', () => {
    for (const r of requests) {
      const query = r.url.split('?')[1];
      const pairs = query?.split('&').map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)]);
      expect(r.blocks.get('params:query'), r.file).toEqual(pairs && Object.fromEntries(pairs));
    }
  });

  it('gives every variable a value: from each environment, or kept from an answer before it', () => {
    const kept = new Set<string>();
    for (const r of requests) {
      const used = variablesOf([r.url, ...Object.values(r.headers), r.body ?? ''].join('\n'));
      for (const name of used) {
        for (const [env, vars] of Object.entries(environments)) {
          expect(name in vars || kept.has(name), `${r.file} uses {{${name}}}, unset in ${env}`).toBe(true);
        }
      }
      for (const [name, expression] of Object.entries(r.captures)) {
        expect(expression, r.file).toMatch(/^res\.body(\.\w+|\[\d+\])+$/);
        kept.add(name);
      }
    }
  });

  // bru counts a request with no assertion as passed: each asserts its status, and a field of a body.
  it('asserts the status and a field of every answer', () => {
    for (const r of requests) {
      const asserts = (r.blocks.get('assert') ?? {}) as Record<string, string>;
      expect(asserts['res.status'], r.file).toMatch(/^eq [1-5]\d\d$/);
      if (!/^eq 20[24]$/.test(asserts['res.status'])) expect(Object.keys(asserts).filter((k) => k.startsWith('res.body')).length, r.file).toBeGreaterThan(0);
    }
  });

  it('sends an Idempotency-Key with every request that moves money', () => {
    const movesMoney = /^POST (\/payments|.*\/(liquidity|liquidity-withdrawals|fund|withdraw))$/;
    const moving = requests.filter((r) => movesMoney.test(`${r.method} ${routeOf(r.url)}`));
    expect(moving.length).toBeGreaterThanOrEqual(8);
    for (const r of moving) expect(Object.keys(r.headers), r.file).toContain('Idempotency-Key');
  });

  it('has environments for Nodes A, B and C through the proxy, with the same variables', () => {
    const a = environments['node-a'];
    expect(a.baseUrl).toBe('http://localhost:{{proxyPort}}');
    expect(a.proxyPort).toBe('80');
    for (const node of ['b', 'c'] as const) {
      const other = environments[`node-${node}`];
      expect(Object.keys(other).sort()).toEqual(Object.keys(a).sort());
      expect(other.baseUrl).toBe(`http://localhost:{{proxyPort}}${nodePrefix(node)}`);
      expect(other.walletAddressUrl).toBe(`http://localhost:${NODES[node].ports.openPayments}`);
    }
  });
});
