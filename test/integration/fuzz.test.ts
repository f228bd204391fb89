import { createHash, randomBytes } from 'node:crypto';
import { type DynamoDBClient, ScanCommand } from '@aws-sdk/client-dynamodb';
import { deserializeIlpPrepare, deserializeIlpReply, isFulfill, serializeIlpPrepare } from 'ilp-packet';
import { serializeIldcpRequest } from 'ilp-protocol-ildcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryFields, type Route, signedRoutes } from '../../lib/api/routes';
import { GUARD_ONLY } from '../../lib/shared/audited';
import type { TestStack } from '../harness/stack';
import { createFlow, ok, resourceKindOf, startPaymentsStack, type World } from '../harness/world';

// Seeded fuzzing of the whole Admin API: FUZZ_N requests (default 2,000), each a valid request of a
// random route with one random thing broken (a field dropped, retyped or replaced with something
// hostile, the body cut or swapped, the path id or query garbled, the signature spoiled). Every
// answer must be under 500, a 4xx must be problem+json, and a 4xx must change nothing: the tables
// are compared before and after it (the outbox relay is stopped, so nothing else writes).
// FUZZ_SEED replays a run.
const N = Number(process.env.FUZZ_N ?? 2000);
const SEED = Number(process.env.FUZZ_SEED ?? 20261122);

let s: TestStack;
let w: World;
let stop: () => Promise<void>;
const ids: Record<string, string> = {};

beforeAll(async () => {
  ({ s, w, stop } = await startPaymentsStack());
  const { intent, quote, payment } = await createFlow(s, w.alice, w.bob, { value: '100', assetCode: 'USD' });
  Object.assign(ids, { asset: w.usd.id, intent: intent.id, quote: quote.id, payment: payment.id });
  ids.wallet = (await ok(s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(w.alice)}`), 200)).id;
  await ok(s.admin('POST', `/wallet-addresses/${ids.wallet}/keys`, { kid: 'k1', kty: 'OKP', crv: 'Ed25519', x: 'A'.repeat(43), alg: 'EdDSA' }));
  ids.peer = (await ok(s.admin('POST', '/peers', peerBody('test.fuzz-peer', 'fuzz-incoming-token-0001')))).id;
  ids.withdrawal = (await ok(s.admin('POST', `/assets/${w.eur.id}/liquidity-withdrawals`, { amount: '100', twoPhase: true }), 200)).id;
  // Wallet addresses (and tenant prefixes) under the node's base too deep for a transaction that
  // claims each of their paths.
  HOSTILE.push(...[99, 150].map((n) => `${s.openPaymentsUrl}/${'d/'.repeat(n - 1)}d`));
  await s.streams.stop();
});
afterAll(() => stop());

function peerBody(address: string, token: string) {
  return {
    name: 'Fuzz',
    staticIlpAddress: address,
    assetCode: 'USD',
    http: { incoming: { authTokens: [token] }, outgoing: { authToken: 'fuzz-outgoing-token-0001', endpoint: 'http://127.0.0.1:9/ilp' } },
  };
}

// mulberry32: small, fast, and the same sequence for the same seed.
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// A request of each route that would succeed (or fail only on state), to break one thing of.
function validBody(op: Route, n: number): unknown {
  const amount = (value: string, assetCode = 'USD') => ({ value, assetCode, assetScale: 2 });
  switch (`${op.method} ${op.path}`) {
    case 'post /assets':
      return { code: `FZ${n}`, scale: 2 };
    case 'post /assets/{id}/liquidity':
    case 'post /assets/{id}/liquidity-withdrawals':
    case 'post /peers/{id}/liquidity':
    case 'post /peers/{id}/liquidity-withdrawals':
      return { amount: '100' };
    case 'patch /assets/{id}':
      return { liquidityThreshold: '100', sendingFee: { fixed: '0', basisPoints: 0 }, receivingFee: null }; // a fee of nothing: the other requests stay as they are
    case 'post /wallet-addresses':
      return { address: `${s.openPaymentsUrl}/fuzz${n}`, assetCode: 'USD', publicName: 'Fuzz' };
    case 'patch /wallet-addresses/{id}':
      return { publicName: `Fuzz ${n}` };
    case 'post /wallet-addresses/{id}/keys':
      return { kid: `kid${n}`, kty: 'OKP', crv: 'Ed25519', x: 'B'.repeat(43), alg: 'EdDSA' };
    case 'post /rates':
      return { sourceAssetCode: 'USD', destinationAssetCode: 'GBP', rate: 0.8, rateTtlSecs: 600 };
    case 'post /payment-intents':
      return { walletAddress: w.bob, incomingAmount: amount('100'), metadata: { n } };
    case 'post /quotes':
      return { walletAddress: w.alice, receiver: ids.intent, receiveAmount: amount('1') };
    case 'post /payments':
      return { walletAddress: w.alice, quoteId: ids.quote, metadata: { n } };
    case 'post /peers':
      return peerBody(`test.fuzz${n}`, `fuzz-incoming-token-${n}-0000`);
    case 'patch /peers/{id}':
      return { name: `Fuzz ${n}`, maxPacketAmount: '1000' };
    default:
      return undefined; // no body
  }
}

const HOSTILE: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  -0,
  1e308,
  2 ** 53 + 1,
  '',
  ' ',
  '0',
  '-1',
  '1e3',
  '0x10',
  '١٢٣',
  'NaN',
  'Infinity',
  '\u0000',
  '\u202E',
  '\u200B',
  '🙂',
  'x'.repeat(5000),
  '<script>',
  '../../etc/passwd',
  '%00',
  'USD',
  'usd',
  '9'.repeat(40),
  '1.5',
  [],
  {},
  [1, 2],
  { value: '1' },
  { __proto__: null },
  JSON.parse('{"__proto__":{"admin":true}}'),
  { a: { b: { c: { d: {} } } } },
  new Array(70).fill(0).reduce((inner) => ({ a: inner }), {}),
  '2026-02-30T00:00:00Z',
  'http://evil.example/x',
  'ftp://x',
  '00000000-0000-4000-8000-000000000000',
];

type Mutated = { path: string; body: string; contentType?: string; badSignature?: boolean };

function mutate(op: Route, rnd: () => number, n: number): Mutated {
  const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
  const realId = (template: string) => ids[resourceKindOf(template)] ?? 'nope';
  let path = op.path.replace('{id}', realId(op.path)).replace('{kid}', 'k1');
  const valid = validBody(op, n);
  let body = valid === undefined ? '' : JSON.stringify(valid);
  let contentType: string | undefined = body ? 'application/json' : undefined;
  let badSignature = false;
  const fields = valid && typeof valid === 'object' ? Object.keys(valid as object) : [];
  const kind = pick(['drop', 'retype', 'retype', 'nested', 'extra', 'junk', 'id', 'query', 'contentType', 'signature', 'duplicate']);
  switch (kind) {
    case 'drop':
      if (fields.length) body = JSON.stringify({ ...(valid as object), [pick(fields)]: undefined });
      break;
    case 'retype':
      if (fields.length) body = JSON.stringify({ ...(valid as object), [pick(fields)]: pick(HOSTILE) });
      break;
    case 'nested': {
      // A field of an amount or a nested object, retyped.
      const v = structuredClone(valid) as Record<string, any> | undefined;
      const nested = v && Object.entries(v).find(([, x]) => x && typeof x === 'object');
      if (nested) {
        const inner = nested[1] as Record<string, unknown>;
        const keys = Object.keys(inner);
        if (keys.length) inner[pick(keys)] = pick(HOSTILE);
        body = JSON.stringify(v);
      } else body = JSON.stringify({ metadata: pick(HOSTILE) });
      break;
    }
    case 'extra':
      body = JSON.stringify({ ...(valid as object), [pick(['unknown', 'id', 'state', 'createdAt', '__proto__', ''])]: pick(HOSTILE) });
      break;
    case 'junk':
      body = pick(['{', '{"a":', '[]', 'null', '"text"', '12', '{}', 'not json', '\u0000', '{"a":1}{"b":2}', body.slice(0, Math.floor(rnd() * body.length))]);
      contentType = 'application/json';
      break;
    case 'duplicate':
      body = body ? body.replace(/^\{/, `{"${pick(fields.length ? fields : ['x'])}":${JSON.stringify(pick(HOSTILE))},`) : '{"a":1,"a":2}';
      contentType = 'application/json';
      break;
    case 'id':
      if (path.includes(realId(op.path)))
        path = op.path
          .replace('{id}', pick(['00000000-0000-4000-8000-000000000000', 'nope', '%00', '..', 'a'.repeat(300), '%E2%80%AE', encodeURIComponent('🙂')]))
          .replace('{kid}', pick(['k1', '%00', 'x'.repeat(300)]));
      else path = `${path}/${pick(['x', '..', '%2F'])}`;
      break;
    case 'query':
      path += pick([
        '?limit=0',
        '?limit=0x10',
        '?limit=1e1',
        '?limit=-5',
        '?cursor=%%%',
        '?cursor=eyJ4IjoxfQ',
        `?cursor=${pick(HOSTILE_CURSORS)}`,
        '?status=nope',
        '?address=%00',
        '?walletAddress=%00',
        '?walletAddress=http%3A%2F%2Fevil.example%2Fx&state=completed',
        '?state=nope',
        '?x=1&x=2',
        '?sourceAssetCode=&destinationAssetCode=',
        `?limit=${'9'.repeat(30)}`,
        '?peerId=nope',
        // Times past what a store holds (year 10000 or 0000 in UTC, by their offset), and a window
        // whose bounds compare one way as instants, the other as text.
        '?to=9999-12-31T23:59:59-00:01',
        '?from=0000-01-01T00:00:00%2B14:00&to=0000-01-01T00:00:00%2B14:00',
        '?from=9999-12-31T23:59:59Z&to=9999-12-31T23:59:59-14:00',
        '?from=2026-01-01T12:00:00Z&to=2026-01-02T00:00:00%2B14:00',
      ]);
      break;
    case 'contentType':
      contentType = pick(['text/plain', 'application/xml', 'application/json-patch+json', '', 'multipart/form-data']);
      if (!body) body = '{}';
      break;
    case 'signature':
      badSignature = true;
      break;
  }
  return { path, body, contentType, badSignature };
}

// The tables' contents, but for the single-use signature guards that every signed non-GET writes
// (SIG#…, or a guard-only item in the place of the record a create would have made).
// The DynamoDB writes the functions have made so far, as the local runtime counts every AWS call
// of every invocation (its own and those it triggers) by the end of it. With the relay stopped
// nothing else writes, so while this count stands still the tables cannot have changed, and a
// request after which it did not move needs no snapshot: most are refused before any write, and
// four scans after each of the 2,000 requests were more than half of this file's CPU.
const WRITES = /^DynamoDB\.(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems|ExecuteStatement|BatchExecuteStatement|ExecuteTransaction)$/;
const writesSoFar = () =>
  Object.values(s.stats())
    .flatMap((fn) => Object.entries(fn.calls))
    .reduce((n, [call, count]) => (WRITES.test(call) ? n + count : n), 0);

async function snapshot(dynamo: DynamoDBClient): Promise<string> {
  const hash = createHash('sha256');
  for (const table of [s.env.MAIN_TABLE, s.env.RATES_TABLE, s.env.WEBHOOK_EVENTS_TABLE, s.env.IDEMPOTENCY_TABLE]) {
    const items: string[] = [];
    let ExclusiveStartKey: Record<string, any> | undefined;
    do {
      const page = await dynamo.send(new ScanCommand({ TableName: table, ExclusiveStartKey, ConsistentRead: true }));
      for (const item of page.Items ?? []) if (!item.pk?.S?.startsWith('SIG#') && !item[GUARD_ONLY]) items.push(JSON.stringify(item, Object.keys(item).sort()));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    hash.update(items.sort().join('\n'));
  }
  return hash.digest('hex');
}

// Cursors a hostile client makes: D2 was a 500 for the first (DynamoDB refuses a sort key over
// 1024 bytes); each must be a 400 invalid_cursor before any query is made.
const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const SORT_KEY = '2026-11-24T10:00:00.000Z#3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c';
const HOSTILE_CURSORS = [
  b64({ after: 'z'.repeat(1100) }),
  b64({ after: 'z'.repeat(300) }),
  'A'.repeat(5000),
  b64({ after: `${SORT_KEY}x` }),
  b64({ after: `${'9'.repeat(200)}-01-01T00:00:00Z#3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c` }),
  b64({ after: SORT_KEY, pk: 'WA#x' }),
  b64({ after: 1 }),
  b64({ after: null }),
  b64({ after: '\u0000' }),
  b64('null'),
  b64('[]'),
  b64('"x"'),
  '%00',
  '..',
  encodeURIComponent('a b'),
  `${b64({ after: SORT_KEY })}=`,
];

describe('hostile cursors on every list route', () => {
  const lists = signedRoutes.filter((op) => op.method === 'get' && 'cursor' in (queryFields(op)?.shape ?? {}));
  it('covers every list route', () =>
    expect(lists.map((op) => op.path).sort()).toEqual([
      '/assets',
      '/audit-events',
      '/grants',
      '/ledger/transfers',
      '/liquidity-withdrawals',
      '/payment-intents',
      '/payments',
      '/peers',
      '/peers/{id}/reconciliation',
      '/tenants',
      '/wallet-addresses',
      '/webhook-events',
    ]));
  for (const op of lists) {
    it(`GET ${op.path}: 400 invalid_cursor for each, before any query`, async () => {
      // The list, with what it requires: the ledger's transfers an account.
      const list = op.path === '/ledger/transfers' ? `${op.path}?account=settlement:${ids.asset}&` : `${op.path.replace('{id}', ids.peer)}?`;
      for (const cursor of HOSTILE_CURSORS) {
        const path = `${list}cursor=${cursor}`;
        const res = await s.send('GET', path, { headers: { signature: s.sign('GET', path) } });
        expect(res.status, cursor.slice(0, 60)).toBe(400);
        expect(res.body, cursor.slice(0, 60)).toMatchObject({ code: 'invalid_cursor', errors: [{ field: 'query.cursor' }] });
      }
      // A cursor the list returned is still taken.
      const first = await ok(s.admin('GET', `${list}limit=1`), 200);
      if (first.nextCursor) await ok(s.admin('GET', `${list}limit=1&cursor=${first.nextCursor}`), 200);
    });
  }
});

describe(`fuzzing the Admin API (seed ${SEED}, ${N} requests)`, () => {
  it('answers every broken request under 500, as problem+json, and a refused one changes nothing', async () => {
    const rnd = prng(SEED);
    let baseline = await snapshot(s.dynamo);
    let writesAtBaseline = writesSoFar();
    const statuses = new Map<number, number>();
    for (let n = 0; n < N; n++) {
      const op = signedRoutes[Math.floor(rnd() * signedRoutes.length)];
      const m = mutate(op, rnd, n);
      const method = op.method.toUpperCase();
      if (method === 'GET') m.body = ''; // (fetch sends no body with a GET)
      const signature = m.badSignature ? s.sign(method, `${m.path}x`, m.body) : s.sign(method, m.path, m.body);
      const res = await s.send(method, m.path, { body: m.body || undefined, headers: { ...(m.contentType && { 'content-type': m.contentType }), signature } });
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      const what = `#${n} ${method} ${m.path.slice(0, 120)} ${m.contentType ?? ''} ${m.body.slice(0, 160)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`;
      expect(res.status, what).toBeLessThan(500);
      if (res.status >= 400) expect(res.headers.get('content-type'), what).toBe('application/problem+json');
      // No write since the last snapshot: the tables are as it found them (see writesSoFar).
      const writes = writesSoFar();
      if (writes === writesAtBaseline) continue;
      if (res.status >= 400) expect(await snapshot(s.dynamo), `${what}: a refused request changed the tables`).toBe(baseline);
      else baseline = await snapshot(s.dynamo);
      writesAtBaseline = writes;
    }
    // It reached past validation too: some requests succeeded, most were refused.
    const refused = [...statuses].filter(([status]) => status >= 400).reduce((sum, [, count]) => sum + count, 0);
    expect(refused).toBeGreaterThan(N / 2);
    expect(N - refused).toBeGreaterThan(0);
  });
});

// Seeded fuzzing of the ILP connector, as a peer would send: valid Prepares (and ILDCP requests)
// to a real incoming payment, each with its bytes broken one way (cut, extended, a byte flipped, a
// length changed, a field swapped). Every answer is an ILP reply (200) or 400 invalid_packet, never
// a 5xx, and no packet moves money (none can carry the STREAM secret's fulfillment).
const PACKETS = Number(process.env.FUZZ_PACKETS ?? 400);
describe(`fuzzing the ILP connector (seed ${SEED}, ${PACKETS} packets)`, () => {
  it('answers every broken packet with an ILP reply or 400 invalid_packet, and moves nothing', async () => {
    const rnd = prng(SEED + 1);
    const pick = <T>(xs: T[]) => xs[Math.floor(rnd() * xs.length)];
    // A peer and an intent of its own (the Admin fuzz above may have deleted or closed the others).
    const peer = await ok(s.admin('POST', '/peers', peerBody('test.fuzz-packets', 'fuzz-packets-token-0001')));
    await ok(s.admin('POST', `/peers/${peer.id}/liquidity`, { amount: '100000' }), 200);
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
    const [{ readIncomingPayment }, { node }] = await Promise.all([import('../../lib/open-payments/client'), import('../../lib/platform/config')]); // (reads the stack's settings)
    const ilpAddress = (await readIncomingPayment(node, intent.url)).methods.find((m) => m.type === 'ilp')!.ilpAddress;
    const baseline = await snapshot(s.dynamo);
    const valid = () =>
      rnd() < 0.15
        ? serializeIldcpRequest({ expiresAt: new Date(Date.now() + 30_000) })
        : serializeIlpPrepare({
            amount: pick(['0', '1', '99', '100', '5000', '18446744073709551615']),
            destination: pick([ilpAddress, `${ilpAddress}.x`, 'test.node-a', 'peer.config', 'g.elsewhere.x']),
            executionCondition: randomBytes(32),
            expiresAt: new Date(Date.now() + pick([-1000, 1000, 30_000])),
            data: randomBytes(pick([0, 1, 64, 1000])),
          });
    const outcomes = new Map<string, number>();
    for (let n = 0; n < PACKETS; n++) {
      let packet = valid();
      const at = Math.floor(rnd() * packet.length);
      const how = pick(['cut', 'extend', 'flip', 'length', 'type', 'empty', 'none']);
      switch (how) {
        case 'cut':
          packet = packet.subarray(0, at);
          break;
        case 'extend':
          packet = Buffer.concat([packet, randomBytes(1 + Math.floor(rnd() * 16))]);
          break;
        case 'flip':
          packet = Buffer.from(packet);
          packet[at] ^= 1 << Math.floor(rnd() * 8);
          break;
        case 'length':
          packet = Buffer.from(packet);
          packet[1] = pick([0x00, 0x7f, 0x80, 0x81, 0x84, 0xff]);
          break;
        case 'type':
          packet = Buffer.from(packet);
          packet[0] = pick([13, 14, 15, 0, 255]);
          break;
        case 'empty':
          packet = Buffer.alloc(0);
          break;
      }
      const res = await fetch(s.connectorUrl, {
        method: 'POST',
        headers: { authorization: 'Bearer fuzz-packets-token-0001', 'content-type': 'application/octet-stream' },
        body: new Uint8Array(packet),
      });
      const what = `#${n} ${how} ${packet.toString('hex').slice(0, 80)} -> ${res.status}`;
      expect(res.status, what).toBeLessThan(500);
      if (how === 'extend') expect(res.status, `${what}: bytes after a packet`).toBe(400);
      if (res.status === 200) {
        const reply = deserializeIlpReply(Buffer.from(await res.arrayBuffer()));
        // Only ILDCP is answered with a Fulfill (its all-zero fulfillment), and only for no money.
        const code = isFulfill(reply) ? 'ildcp' : reply.code;
        if (isFulfill(reply)) {
          expect(reply.fulfillment.equals(Buffer.alloc(32)), what).toBe(true);
          expect(deserializeIlpPrepare(packet).amount, what).toBe('0');
        }
        outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
      } else {
        expect(res.status, what).toBe(400);
        expect((await res.json()).code, what).toBe('invalid_packet');
        outcomes.set('400', (outcomes.get('400') ?? 0) + 1);
      }
    }
    expect(await snapshot(s.dynamo)).toBe(baseline);
    // It reached past the parser too: some packets were read and answered in ILP.
    expect(outcomes.get('400')).toBeGreaterThan(PACKETS / 4);
    expect(PACKETS - (outcomes.get('400') ?? 0)).toBeGreaterThan(PACKETS / 10);
  });
});
