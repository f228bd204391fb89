import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peerBody } from '../harness/peers';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';

let s: TestStack;
let n = 0;

beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '' });
  await ok(s.admin('POST', '/assets', { code: 'USD', scale: 2 }));
});
afterAll(() => s.stop());

const body = (over: Record<string, unknown> = {}) => peerBody(++n, over);

// The Admin API's answers for peers, its validation, reconciliation and racing changes on DynamoDB;
// peers' rules (uniqueness, updates, liquidity and deletion, the list) are tested in memory:
// test/unit/services/peers.test.ts.
describe('peers', () => {
  it('creates a peer, never echoing its tokens, and reads it back with its liquidity', async () => {
    const created = await ok(s.admin('POST', '/peers', body({ liquidityThreshold: '500' })));
    expect(created).toEqual({
      id: expect.any(String),
      name: `Peer ${n}`,
      staticIlpAddress: `test.peer-${n}`,
      assetCode: 'USD',
      assetScale: 2,
      http: { outgoing: { endpoint: `http://peer-${n}.example/ilp` } },
      maxPacketAmount: '1000',
      liquidityThreshold: '500',
      routes: [],
      createdAt: expect.any(String),
    });
    expect(JSON.stringify(created)).not.toContain('token');
    const read = await ok(s.admin('GET', `/peers/${created.id}`), 200);
    expect(read).toEqual({ ...created, liquidity: { value: '0', assetCode: 'USD', assetScale: 2 } });
  });

  it('refuses bad input with 400 naming the field, and an unknown asset with 422', async () => {
    for (const [over, field] of [
      [{ staticIlpAddress: 'node-b' }, 'staticIlpAddress'],
      [{ staticIlpAddress: 'test.a b' }, 'staticIlpAddress'],
      [{ assetCode: 'usd' }, 'assetCode'],
      [{ maxPacketAmount: '0' }, 'maxPacketAmount'],
      [{ maxPacketAmount: '-1' }, 'maxPacketAmount'],
      [
        { http: { incoming: { authTokens: ['short'] }, outgoing: { authToken: 'outgoing-token-long-enough', endpoint: 'http://x/ilp' } } },
        'http.incoming.authTokens.0',
      ],
      [
        { http: { incoming: { authTokens: ['incoming-token-long-enough'] }, outgoing: { authToken: 'outgoing-token-long-enough', endpoint: 'ftp://x' } } },
        'http.outgoing.endpoint',
      ],
      [{ extra: 1 }, 'extra'],
      [{ routes: ['test.ok', 'nowhere'] }, 'routes.1'],
      [{ routes: ['test.a b'] }, 'routes.0'],
      [{ routes: 'test.x' }, 'routes'],
      [{ routes: Array.from({ length: 101 }, (_, i) => `test.r${i}`) }, 'routes'],
    ] as const) {
      const res = await s.admin('POST', '/peers', body(over));
      expect(res.status, JSON.stringify(over)).toBe(400);
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        JSON.stringify(over),
      ).toContain(field);
    }
    expect((await s.admin('POST', '/peers', body({ assetCode: 'XYZ' }))).body.code).toBe('unknown_asset');
    expect((await s.admin('PATCH', `/peers/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c`, { name: 'x' })).status).toBe(404);
    expect((await s.admin('DELETE', `/peers/not-a-uuid`)).status).toBe(404);
  });
});

// Peering by URL is off unless AUTO_PEERING_ENABLED (test/integration/peering-by-url.test.ts turns it on):
// both its sides refuse, before anything is sent or made.
describe('peering by URL, off by default', () => {
  it('refuses POST /peers/by-url and a peering request at the connector with 403 auto_peering_disabled', async () => {
    const peering = s.connectorUrl.replace(/\/ilp$/, '/peering');
    const byUrl = await s.admin('POST', '/peers/by-url', { url: peering, assetCode: 'USD', liquidityToDeposit: '100' });
    expect([byUrl.status, byUrl.body.code]).toEqual([403, 'auto_peering_disabled']);
    const request = { staticIlpAddress: 'test.rafiki', ilpConnectorUrl: 'http://localhost:5002', asset: { code: 'USD', scale: 2 }, httpToken: 'x'.repeat(36) };
    const res = await fetch(peering, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(request) });
    expect([res.status, (await res.json()).code]).toEqual([403, 'auto_peering_disabled']);
    expect((await ok(s.admin('GET', '/peers'), 200)).items.map((p: { staticIlpAddress: string }) => p.staticIlpAddress)).not.toContain('test.rafiki');
  });
});

describe('reconciliation', () => {
  it('lists no unanswered packets for a new peer, with a zero total over the default window of 24 hours', async () => {
    const p = await ok(s.admin('POST', '/peers', body()));
    const res = await ok(s.admin('GET', `/peers/${p.id}/reconciliation`), 200);
    expect(res).toMatchObject({ peerId: p.id, items: [], nextCursor: null, total: { count: 0, amount: { value: '0', assetCode: 'USD', assetScale: 2 } } });
    expect(Date.parse(res.to) - Date.parse(res.from)).toBe(24 * 3600 * 1000);
  });

  it('refuses an unknown peer with 404 and a bad window or cursor with 400, never a 500', async () => {
    const p = await ok(s.admin('POST', '/peers', body()));
    expect((await s.admin('GET', '/peers/00000000-0000-4000-8000-000000000000/reconciliation')).status).toBe(404);
    const bad = async (query: string, field: string) => {
      const res = await s.admin('GET', `/peers/${p.id}/reconciliation?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    };
    await bad('from=yesterday', 'query.from');
    await bad('from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z', 'query.to'); // not after from, as every window names it
    await bad(`from=${new Date(Date.now() + 60_000).toISOString()}`, 'query.from'); // not before the default to, now
    await bad('from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z', 'query.from');
    await bad('cursor=not-a-cursor', 'query.cursor');
    await bad('limit=0', 'query.limit');
    await bad('other=1', 'query.other');
  });

  it('answers an empty last page for a cursor from before the window (an earlier one, or one that slid on)', async () => {
    const p = await ok(s.admin('POST', '/peers', body()));
    const before = Buffer.from(JSON.stringify({ after: `2020-01-01T00:00:00.000Z#${p.id}` })).toString('base64url');
    const res = await ok(s.admin('GET', `/peers/${p.id}/reconciliation?from=2026-01-01T00:00:00Z&to=2026-01-02T00:00:00Z&cursor=${before}`), 200);
    expect(res).toMatchObject({ items: [], nextCursor: null, total: { count: 0 } });
  });
});

describe('concurrent changes', () => {
  it('lets one of several racing token changes win; the others are 409 and claim nothing', async () => {
    const peer = await ok(s.admin('POST', '/peers', body()));
    const tokens = Array.from({ length: 6 }, (_, i) => `racing-token-${i}-0123456789`);
    const results = await Promise.all(tokens.map((t) => s.admin('PATCH', `/peers/${peer.id}`, { http: { incoming: { authTokens: [t] } } })));
    const won = results.flatMap((r, i) => (r.status === 200 ? [tokens[i]] : []));
    expect(won.length).toBeGreaterThanOrEqual(1);
    for (const r of results.filter((x) => x.status !== 200)) expect([r.status, r.body.code]).toEqual([409, 'peer_changed']);
    // Exactly one token is held, a winner's (the last to commit): every other is free for another peer.
    const held: string[] = [];
    for (const t of tokens) {
      const other = await s.admin(
        'POST',
        '/peers',
        body({ http: { incoming: { authTokens: [t] }, outgoing: { authToken: 'outgoing-token-x-0123', endpoint: 'http://x.example/ilp' } } }),
      );
      expect([201, 409], t).toContain(other.status);
      if (other.status === 409) held.push(t);
    }
    expect(held).toHaveLength(1);
    expect(won).toContain(held[0]);
  });
});
