import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { signedRoutes } from '../../lib/api/routes';
import { translation, useDatabase } from '../../lib/platform/db';
import { dynamoOverHttp } from '../../lib/platform/dynamodb-http';
import type { TestStack } from '../harness/stack';
import { createFlow, ok, resourceKindOf, startPaymentsStack } from '../harness/world';

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
  const http = {
    incoming: { authTokens: ['no-500-incoming-token-0001'] },
    outgoing: { authToken: 'no-500-outgoing-token-01', endpoint: 'http://127.0.0.1:9/ilp' },
  };
  ids.peer = (await ok(s.admin('POST', '/peers', { staticIlpAddress: 'test.no-500-peer', assetCode: 'USD', http }))).id;
  await ok(s.admin('POST', `/peers/${ids.peer}/liquidity`, { amount: '100' }), 200); // which keeps DELETE from removing it
});
afterAll(() => stop());

// Times past what a store can hold (year 10000 in UTC, or before 0001, by their offset), and windows
// whose bounds compare one way as instants and the other as text.
const DATES = [
  '?to=9999-12-31T23:59:59-00:01',
  '?from=9999-12-31T23:59:59-00:01',
  '?to=0000-01-01T00:00:00%2B14:00',
  '?from=0001-01-01T00:00:00%2B00:01',
  '?from=2026-01-01T00:00:00Z&to=9999-12-31T23:59:59-14:00',
  '?from=9999-12-31T23:59:59Z&to=9999-12-31T23:59:59-14:00',
  '?from=2026-01-01T12:00:00Z&to=2026-01-02T00:00:00%2B14:00',
  '?from=2026-01-02T00:00:00%2B14:00&to=2026-01-01T12:00:00Z',
];
// URLs under the node's base with this many path segments: a transaction of one claim per segment
// would pass DynamoDB's 100 items.
const DEPTHS = [99, 150];
const deep = (n: number) => `${s.openPaymentsUrl}/${'d/'.repeat(n - 1)}d`;

const weird = [null, true, -1, 0, 1.5, 1e308, '', ' ', 'x'.repeat(5000), '-1', '1e3', '0x10', '١٢', [], {}, [1, 2], { value: '1' }, '\u0000', '🙂'];
const bodies = (): string[] => {
  const out = ['', '{}', '[]', 'null', '"text"', '12', '{"a":', '{"__proto__":{"x":1}}', JSON.stringify({ a: { b: { c: { d: { e: [[[[]]]] } } } } })];
  for (const v of weird) {
    out.push(JSON.stringify({ code: v, scale: v, address: v, assetCode: v, walletAddress: v, receiver: v, quoteId: v, amount: v, rate: v }));
    out.push(JSON.stringify({ incomingAmount: v, debitAmount: v, receiveAmount: v, metadata: v, expiresAt: v, publicName: v, sourceAssetCode: v }));
  }
  for (const n of DEPTHS) {
    out.push(JSON.stringify({ address: deep(n), assetCode: 'USD', publicName: 'Deep' }));
    out.push(JSON.stringify({ name: 'Deep', walletAddressPrefix: deep(n) }));
    out.push(JSON.stringify({ walletAddress: deep(n), incomingAmount: { value: '1', assetCode: 'USD', assetScale: 2 } }));
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
                ...DATES,
                ...DEPTHS.map((n) => `?address=${encodeURIComponent(deep(n))}`),
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
    });
  }
});

// The Open Payments resource server's GETs, of wallet addresses too deep to be made: 404, as for
// any unknown address (their payments: a 4xx, unauthorized).
describe('no Open Payments GET reaches a 500', () => {
  for (const n of DEPTHS) {
    it(`GET of a wallet address of ${n} path segments, and of its keys and payments`, async () => {
      for (const path of ['', '/jwks.json', '/incoming-payments', '/outgoing-payments', '/quotes']) {
        const res = await fetch(`${deep(n)}${path}`);
        const what = `${n} ${path} -> ${res.status} ${(await res.text()).slice(0, 200)}`;
        if (path === '' || path === '/jwks.json') expect(res.status, what).toBe(404);
        else expect(res.status, what).toBeLessThan(500);
        expect(res.headers.get('content-type'), what).toContain('json');
      }
    });
  }
});

// A database that throttles, or fails on its side, past the SDK's retries: the Admin API answers 503
// with Retry-After, a problem the FSP's client retries, and the write it refused is not made. The
// functions' database is, for this test, a local HTTP server that answers every call as DynamoDB
// does when it throttles or fails.
describe('a database that throttles or fails answers 503, not 500', () => {
  for (const [status, type] of [
    [400, 'ThrottlingException'],
    [500, 'InternalServerError'],
  ] as const) {
    it(`${type}: a list and a create`, async () => {
      let calls = 0;
      const failing = createServer((req, res) => {
        calls++;
        req
          .resume()
          .on('end', () =>
            res
              .writeHead(status, { 'content-type': 'application/x-amz-json-1.0' })
              .end(JSON.stringify({ __type: `com.amazonaws.dynamodb.v20120810#${type}`, message: type })),
          );
      }).listen(0);
      await once(failing, 'listening');
      const endpoint = `http://localhost:${(failing.address() as AddressInfo).port}`;
      const code = `T${status}`;
      useDatabase(dynamoOverHttp(new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS }), translation));
      try {
        for (const [method, path, body] of [
          ['GET', '/assets', undefined],
          ['POST', '/assets', { code, scale: 2 }],
        ] as const) {
          const res = await s.admin(method, path, body);
          expect(res.status, `${method} ${path} -> ${JSON.stringify(res.body)}`).toBe(503);
          expect(res.headers.get('content-type')).toBe('application/problem+json');
          expect(res.headers.get('retry-after')).toBe('1');
          expect(res.body).toMatchObject({ code: 'dependency_unavailable', detail: expect.stringContaining(type) });
        }
        expect(calls, 'the SDK retried each call before giving up').toBeGreaterThanOrEqual(4);
      } finally {
        useDatabase(undefined);
        failing.close();
      }
      const assets = (await ok(s.admin('GET', '/assets?limit=100'), 200)).items as Array<{ code: string }>;
      expect(assets.map((a) => a.code)).not.toContain(code);
    });
  }
});
