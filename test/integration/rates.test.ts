import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';
import { startRatesServer } from '../servers/rates-server';

let s: TestStack;
let fsp: Awaited<ReturnType<typeof startRatesServer>>;
const TIMEOUT_SECS = 1;

const lookup = (source: string, destination: string, peerId?: string) =>
  s.admin('GET', `/rates?sourceAssetCode=${source}&destinationAssetCode=${destination}${peerId ? `&peerId=${peerId}` : ''}`);
const push = (body: Record<string, unknown>) => s.admin('POST', '/rates', body);
const requestsFor = (base: string, peerId: string | null = null) => fsp.requests.filter((r) => r.base === base && r.peerId === peerId).length;
const advance = (secs: number) => vi.setSystemTime(Date.now() + secs * 1000);

// Peer-scoped rates name peers of this node by id.
const peers: Record<string, string> = {};

beforeAll(async () => {
  fsp = await startRatesServer();
  s = await startTestStack({ EXCHANGE_RATES_URL: fsp.url, EXCHANGE_RATES_TIMEOUT_SECS: String(TIMEOUT_SECS) });
  await s.admin('POST', '/assets', { code: 'USD', scale: 2 });
  for (const name of ['one', 'x', 'y', 'z', 'r']) {
    const res = await s.admin('POST', '/peers', {
      staticIlpAddress: `test.peer-${name}`,
      assetCode: 'USD',
      http: {
        incoming: { authTokens: [`incoming-token-of-peer-${name}`] },
        outgoing: { authToken: `outgoing-token-to-peer-${name}`, endpoint: 'http://localhost:1/ilp' },
      },
    });
    peers[name] = res.body.id;
  }
});
afterAll(async () => {
  await s.stop();
  await fsp.stop();
});
beforeEach(() => {
  // Only Date is faked: time jumps when a test says so, while timers and I/O run for real.
  vi.useFakeTimers({ toFake: ['Date'] });
  fsp.reset();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('push', () => {
  it('stores a rate with its expiry (default 3600 s) and answers 201', async () => {
    const before = Date.now();
    const res = await push({ sourceAssetCode: 'AAA', destinationAssetCode: 'BBB', rate: 1.25 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ sourceAssetCode: 'AAA', destinationAssetCode: 'BBB', rate: 1.25, origin: 'pushed', expiresAt: expect.any(String) });
    expect(Date.parse(res.body.expiresAt) - before).toBeGreaterThanOrEqual(3600_000);
    expect(Date.parse(res.body.expiresAt) - before).toBeLessThan(3601_000);
    const peer = await push({ peerId: peers.one, sourceAssetCode: 'AAA', destinationAssetCode: 'BBB', rate: 1.5, rateTtlSecs: 30 });
    expect(peer.body).toMatchObject({ peerId: peers.one, rate: 1.5 });
    const unknown = await push({ peerId: '3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c', sourceAssetCode: 'AAA', destinationAssetCode: 'BBB', rate: 1.5 });
    expect(unknown.status).toBe(422);
    expect(unknown.body.code).toBe('unknown_peer');
    expect((await lookup('AAA', 'BBB', '3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c')).body.code).toBe('unknown_peer');
  });

  it('replaces the rate of the same pair and scope', async () => {
    await push({ sourceAssetCode: 'REP', destinationAssetCode: 'LCD', rate: 2 });
    await push({ sourceAssetCode: 'REP', destinationAssetCode: 'LCD', rate: 3 });
    expect((await lookup('REP', 'LCD')).body).toMatchObject({ rate: 3, origin: 'pushed' });
  });

  it('refuses invalid rates with 400 naming the field', async () => {
    for (const [body, field] of [
      [{ sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0 }, 'rate'],
      [{ sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: -1 }, 'rate'],
      [{ sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: '1.1' }, 'rate'],
      [{ sourceAssetCode: 'USD', destinationAssetCode: 'EUR' }, 'rate'],
      [{ sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 1, rateTtlSecs: 0 }, 'rateTtlSecs'],
      [{ sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 1, rateTtlSecs: -5 }, 'rateTtlSecs'],
      [{ sourceAssetCode: 'usd', destinationAssetCode: 'EUR', rate: 1 }, 'sourceAssetCode'],
      [{ sourceAssetCode: 'USD', destinationAssetCode: 'USD', rate: 1 }, 'destinationAssetCode'],
      [{ sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 1, peerId: '' }, 'peerId'],
      [{ sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 1, extra: true }, 'extra'],
    ] as const) {
      const res = await push(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(
        res.body.errors.map((e: { field: string }) => e.field),
        JSON.stringify(body),
      ).toContain(field);
    }
    expect((await s.admin('POST', '/rates', '{"rate": 1e999, "sourceAssetCode":"USD","destinationAssetCode":"EUR"}')).status).toBe(400);
  });
});

describe('resolve', () => {
  it('answers 1 for the same code on both sides, with no lookup', async () => {
    const res = await lookup('USD', 'USD');
    expect(res.body).toEqual({ sourceAssetCode: 'USD', destinationAssetCode: 'USD', rate: 1, origin: 'identity', expiresAt: null });
    expect(fsp.requests).toHaveLength(0);
  });

  it('prefers a valid pushed rate over a pulled one', async () => {
    fsp.rates[''].PBP = { PBQ: 0.9 };
    await push({ sourceAssetCode: 'PBP', destinationAssetCode: 'PBQ', rate: 0.95 });
    expect((await lookup('PBP', 'PBQ')).body).toMatchObject({ rate: 0.95, origin: 'pushed' });
    expect(requestsFor('PBP')).toBe(0);
  });

  it('falls through to a synchronous pull once a pushed rate expires', async () => {
    fsp.rates[''].EXP = { EXQ: 0.8 };
    await push({ sourceAssetCode: 'EXP', destinationAssetCode: 'EXQ', rate: 0.95, rateTtlSecs: 60 });
    advance(61);
    const res = await lookup('EXP', 'EXQ');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ rate: 0.8, origin: 'pulled' });
    expect(requestsFor('EXP')).toBe(1);
  });

  it('keeps peer and FSP-wide rates apart, in both directions', async () => {
    fsp.rates[''].SCA = { SCB: 0.5 };
    fsp.rates[peers.x] = { SCA: { SCB: 0.6 } };
    await push({ sourceAssetCode: 'SCA', destinationAssetCode: 'SCB', rate: 0.7 });
    // A peer lookup ignores the FSP-wide pushed rate and pulls with peerId.
    expect((await lookup('SCA', 'SCB', peers.x)).body).toMatchObject({ rate: 0.6, origin: 'pulled', peerId: peers.x });
    expect(requestsFor('SCA', peers.x)).toBe(1);
    expect(requestsFor('SCA')).toBe(0);
    // An FSP-wide lookup ignores a peer's pushed rate.
    await push({ peerId: peers.y, sourceAssetCode: 'SCC', destinationAssetCode: 'SCD', rate: 9 });
    fsp.rates[''].SCC = { SCD: 2 };
    expect((await lookup('SCC', 'SCD')).body).toMatchObject({ rate: 2, origin: 'pulled' });
    expect((await lookup('SCC', 'SCD', peers.y)).body).toMatchObject({ rate: 9, origin: 'pushed' });
  });

  it('expires each scope independently', async () => {
    fsp.rates[''].IND = { INE: 1.1 };
    await push({ sourceAssetCode: 'IND', destinationAssetCode: 'INE', rate: 1.2, rateTtlSecs: 100 });
    await push({ peerId: peers.z, sourceAssetCode: 'IND', destinationAssetCode: 'INE', rate: 1.3, rateTtlSecs: 1000 });
    advance(101);
    expect((await lookup('IND', 'INE')).body).toMatchObject({ rate: 1.1, origin: 'pulled' });
    expect((await lookup('IND', 'INE', peers.z)).body).toMatchObject({ rate: 1.3, origin: 'pushed' });
  });

  it('pulls once for many lookups: concurrent ones share a request, later ones hit the cache', async () => {
    fsp.rates[''].CAC = { CAD: 1.36, CAE: 0.68 };
    const answers = await Promise.all(Array.from({ length: 20 }, () => lookup('CAC', 'CAD')));
    expect(answers.every((a) => a.status === 200 && a.body.rate === 1.36 && a.body.origin === 'pulled')).toBe(true);
    expect((await lookup('CAC', 'CAE')).body.rate).toBe(0.68);
    expect(requestsFor('CAC')).toBe(1);
    // The cached rates last EXCHANGE_RATES_LIFETIME_SECS (3600 s): just before, no new pull; after, one.
    advance(3590);
    await lookup('CAC', 'CAD');
    expect(requestsFor('CAC')).toBe(1);
    advance(11);
    await lookup('CAC', 'CAD');
    expect(requestsFor('CAC')).toBe(2);
  });

  it('shares the request with lookups that read the cache just before the pull was saved', async () => {
    // Lookups started one every millisecond across a 30 ms pull: some read the empty cache while
    // the pull is being saved and ask for the rate just after it ended; they take its result.
    fsp.rates[''].RAC = { RAD: 2.5 };
    fsp.respondWith((_req, res, url) => setTimeout(() => res.end(JSON.stringify({ base: url.searchParams.get('base'), rates: fsp.rates[''].RAC })), 30));
    const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => new Promise((r) => setTimeout(r, i)).then(() => lookup('RAC', 'RAD'))));
    expect(answers.every((a) => a.status === 200 && a.body.rate === 2.5)).toBe(true);
    expect(requestsFor('RAC')).toBe(1);
  });
});

describe('rate_unavailable', () => {
  const expectUnavailable = async (base: string, destination: string, reason: RegExp) => {
    const res = await lookup(base, destination);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toBe('application/problem+json');
    expect(res.body.code).toBe('rate_unavailable');
    expect(res.body.detail).toMatch(reason);
  };

  it('when the FSP times out: cut at the timeout, not when the FSP answers', async () => {
    // The FSP answers after 20 s; the lookup is cut long before (its timeout is 1 s). No tighter
    // bound: a loaded machine stretches the time around the timeout (1.6 s measured at load 21).
    const answersAfterMs = 20_000;
    fsp.respondWith((_req, res) => setTimeout(() => res.end('{}'), answersAfterMs).unref());
    const started = performance.now();
    await expectUnavailable('TMO', 'TMP', new RegExp(`did not answer within ${TIMEOUT_SECS} s`));
    expect(performance.now() - started).toBeLessThan(answersAfterMs);
  });

  it('when the FSP answers 5xx', async () => {
    fsp.respondWith((_req, res) => {
      res.writeHead(503);
      res.end('down');
    });
    await expectUnavailable('FHX', 'FHY', /HTTP 503/);
  });

  it('when the FSP answers something that is not JSON, or not a rates document', async () => {
    fsp.respondWith((_req, res) => res.end('<html>oops</html>'));
    await expectUnavailable('NJA', 'NJB', /not JSON/);
    fsp.respondWith((_req, res) => res.end(JSON.stringify({ base: 'NJA', rates: { NJB: -1 } })));
    await expectUnavailable('NJA', 'NJB', /invalid rates document: rates.NJB/);
    fsp.respondWith((_req, res) => res.end(JSON.stringify({ base: 'NJA' })));
    await expectUnavailable('NJA', 'NJB', /invalid rates document: rates/);
  });

  it('when the FSP answers for another base', async () => {
    fsp.respondWith((_req, res) => res.end(JSON.stringify({ base: 'OTH', rates: { WBB: 1 } })));
    await expectUnavailable('WBA', 'WBB', /rates for base OTH, not WBA/);
  });

  it('when the FSP does not list the destination code', async () => {
    fsp.rates[''].MSA = { MSC: 1 };
    await expectUnavailable('MSA', 'MSB', /do not list MSB/);
  });

  it('when the FSP cannot be reached', async () => {
    fsp.respondWith((req) => req.socket.destroy());
    await expectUnavailable('CRA', 'CRB', /could not be reached/);
  });

  it('after a failure, the next lookup tries again and succeeds', async () => {
    fsp.respondWith((_req, res) => {
      res.writeHead(500);
      res.end();
    });
    await expectUnavailable('AGA', 'AGB', /HTTP 500/);
    fsp.reset();
    fsp.rates[''].AGA = { AGB: 4 };
    expect((await lookup('AGA', 'AGB')).body).toMatchObject({ rate: 4, origin: 'pulled' });
  });

  it('refuses incomplete queries with 400', async () => {
    expect((await s.admin('GET', '/rates?sourceAssetCode=USD')).status).toBe(400);
    expect((await s.admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=eur')).status).toBe(400);
  });
});

describe('proactive refresh', () => {
  it('re-pulls pulled rates near expiry, leaves pushed ones, and survives a failing base', async () => {
    fsp.rates[''].RFA = { RFB: 1 };
    fsp.rates[''].RFC = { RFD: 2 };
    fsp.rates[peers.r] = { RFA: { RFB: 3 } };
    await lookup('RFA', 'RFB');
    await lookup('RFC', 'RFD');
    await lookup('RFA', 'RFB', peers.r);
    await push({ sourceAssetCode: 'RFP', destinationAssetCode: 'RFQ', rate: 5, rateTtlSecs: 3600 });
    // Not yet due: nothing is pulled.
    fsp.requests.length = 0;
    await s.invoke('ratesRefresh');
    expect(fsp.requests).toHaveLength(0);

    fsp.rates[''].RFA = { RFB: 1.1 };
    fsp.rates[peers.r] = { RFA: { RFB: 3.3 } };
    delete fsp.rates[''].RFC; // this base now fails (404)
    advance(3600 - 60); // within EXCHANGE_RATES_REFRESH_BEFORE_SECS (120) of expiry
    const summary = (await s.invoke('ratesRefresh')) as { refreshed: number; failed: number };
    expect(requestsFor('RFA')).toBe(1);
    expect(requestsFor('RFA', peers.r)).toBe(1);
    expect(requestsFor('RFC')).toBe(1);
    expect(requestsFor('RFP')).toBe(0);
    expect(summary.failed).toBeGreaterThanOrEqual(1);

    // After the old expiry, lookups find the refreshed rates without waiting on the FSP.
    advance(120);
    fsp.requests.length = 0;
    expect((await lookup('RFA', 'RFB')).body).toMatchObject({ rate: 1.1, origin: 'pulled' });
    expect((await lookup('RFA', 'RFB', peers.r)).body).toMatchObject({ rate: 3.3, origin: 'pulled' });
    expect(fsp.requests).toHaveLength(0);
    // The pushed rate was not refreshed: past its expiry the lookup pulls synchronously.
    fsp.rates[''].RFP = { RFQ: 6 };
    advance(3600);
    expect((await lookup('RFP', 'RFQ')).body).toMatchObject({ rate: 6, origin: 'pulled' });
  });
});
