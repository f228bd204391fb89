import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedRoutes } from '../../lib/routes';
import type { TestStack } from '../stack';
import { createFlow, ok, resourceKindOf, startPaymentsStack } from '../world';

// Bad input never reaches a 500: every Admin route, with real and unknown ids, gets malformed,
// mistyped and hostile bodies and queries, and must answer a 4xx problem+json (or succeed).
let s: TestStack;
let stop: () => Promise<void>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  const started = await startPaymentsStack();
  ({ s, stop } = started);
  const { intent, quote, payment } = await createFlow(s, started.w.alice, started.w.bob, { value: '100', assetCode: 'USD' });
  Object.assign(ids, { asset: started.w.usd.id, intent: intent.id, quote: quote.id, payment: payment.id });
  ids.wallet = (await s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(started.w.alice)}`)).body.id;
  await ok(s.admin('POST', `/wallet-addresses/${ids.wallet}/keys`, { kid: 'k1', kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43), alg: 'EdDSA' }));
});
afterAll(() => stop());

const weird = [null, true, -1, 0, 1.5, 1e308, '', ' ', 'x'.repeat(5000), '-1', '1e3', '0x10', '١٢', [], {}, [1, 2], { value: '1' }, '\u0000', '🙂'];
const bodies = (): string[] => {
  const out = ['', '{}', '[]', 'null', '"text"', '12', '{"a":', '{"__proto__":{"x":1}}', JSON.stringify({ a: { b: { c: { d: { e: [[[[]]]] } } } } })];
  for (const v of weird) {
    out.push(JSON.stringify({ code: v, scale: v, address: v, assetCode: v, walletAddress: v, receiver: v, quoteId: v, amount: v, rate: v }));
    out.push(JSON.stringify({ incomingAmount: v, debitAmount: v, receiveAmount: v, metadata: v, expiresAt: v, publicName: v, sourceAssetCode: v }));
  }
  return out;
};

function pathFor(template: string, real: boolean): string {
  const key = resourceKindOf(template);
  return template.replace('{id}', real ? (ids[key] ?? 'nope') : '00000000-0000-4000-8000-000000000000').replace('{kid}', real ? 'k1' : '%00%ff');
}

describe('no input reaches a 500', () => {
  for (const op of signedRoutes) {
    it(`${op.method.toUpperCase()} ${op.path}`, async () => {
      const statuses = new Set<number>();
      for (const real of [true, false]) {
        const path = pathFor(op.path, real);
        const queries =
          op.method === 'get'
            ? [
                '',
                '?limit=-1',
                '?limit=1e9&cursor=%%%',
                '?cursor=eyJ4IjoxfQ',
                '?status=failed&limit=abc',
                '?address=%00',
                '?sourceAssetCode=&destinationAssetCode=X',
                '?x=1&x=2',
              ]
            : [''];
        for (const q of queries) {
          for (const body of op.method === 'get' ? [''] : bodies()) {
            const res = await s.send(op.method.toUpperCase(), path + q, {
              body: body || undefined,
              headers: { ...(body && { 'content-type': 'application/json' }), signature: s.sign(op.method.toUpperCase(), path + q, body) },
            });
            statuses.add(res.status);
            expect(res.status, `${op.method} ${path}${q} ${body.slice(0, 80)} -> ${JSON.stringify(res.body).slice(0, 200)}`).toBeLessThan(500);
            if (res.status >= 400) expect(res.headers.get('content-type')).toBe('application/problem+json');
          }
        }
      }
      expect([...statuses].some((x) => x >= 400)).toBe(true);
    }, 120_000);
  }
});
