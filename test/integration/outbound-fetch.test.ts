import { generateKeyPairSync } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient } from '@interledger/open-payments';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { boundedFetch, MAX_BYTES, OutboundFetchError } from '../../lib/platform/net/fetch';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';
import { type HostileServer, pour, startHostileServer, startRawServer } from '../servers/hostile-server';

// D6: a grant request whose client URL served a 150 MB jwks.json took the node from 136 MB to
// 689 MB (four at once: 1,241 MB); the fetch had a timeout but no size limit. Every fetch of a URL
// that someone outside chose now goes through lib/platform/net/fetch.ts, bounded in size, time and
// redirects. These servers are real, on this machine (the stack allows private addresses, as
// npm start does; outbound-fetch-private.test.ts runs with that off).
const MB = 1024 * 1024;
const HUGE = 150 * MB;
// What may have left a server before the reader hung up: the cap, plus what the sockets buffer on
// loopback. Far below HUGE: the reader stopped at the cap, it did not read the body.
const BUFFERED = 16 * MB;
const allowPrivate = { allowPrivate: true };
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const servers: HostileServer[] = [];
const serve = async (...args: Parameters<typeof startHostileServer>) => {
  const s = await startHostileServer(...args);
  servers.push(s);
  return s;
};
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});
const refusal = (p: Promise<unknown>) =>
  p.then(
    () => 'none',
    (e) => (e instanceof OutboundFetchError ? e.reason : `other: ${(e as Error).message}`),
  );

describe('the bounded fetch, against real servers', () => {
  it('refuses a body that says it is too large, without reading it', async () => {
    const s = await serve((_req, res, tally) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(HUGE) });
      void pour(res, tally, HUGE);
    });
    expect(await refusal(boundedFetch(`${s.url}/jwks.json`, undefined, allowPrivate))).toBe('too_large');
    await expect.poll(() => s.tally.hungUp).toBe(true);
    expect(s.tally.bytesSent).toBeLessThan(BUFFERED);
  });

  it('stops reading at the cap a body without Content-Length that never ends', async () => {
    const s = await serve((_req, res, tally) => {
      res.writeHead(200, { 'content-type': 'application/json' }); // chunked
      void pour(res, tally, Number.POSITIVE_INFINITY);
    });
    const started = Date.now();
    expect(await refusal(boundedFetch(`${s.url}/jwks.json`, undefined, allowPrivate))).toBe('too_large');
    await expect.poll(() => s.tally.hungUp).toBe(true);
    expect(s.tally.bytesSent).toBeLessThan(BUFFERED);
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('reads no more than Content-Length says when the server sends more, and hangs up on the rest', async () => {
    const s = await startRawServer((socket, tally) => {
      socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n');
      void pour(socket, tally, Number.POSITIVE_INFINITY);
    });
    servers.push(s);
    // The parser ends the body at 1000 bytes and takes what follows for garbage: which of the two
    // it tells first depends on how the bytes arrived, and either way nothing more is read.
    const outcome = await boundedFetch(`${s.url}/jwks.json`, undefined, allowPrivate)
      .then((res) => res.arrayBuffer())
      .then(
        (body) => body.byteLength,
        () => 'refused',
      );
    expect([1000, 'refused']).toContain(outcome);
    await expect.poll(() => s.tally.hungUp).toBe(true);
    expect(s.tally.bytesSent).toBeLessThan(BUFFERED);
  });

  it('accepts a body of exactly the cap, and times out a server that trickles', async () => {
    const exact = await serve((_req, res) => res.end(Buffer.alloc(MAX_BYTES, 0x20)));
    expect((await (await boundedFetch(exact.url, undefined, allowPrivate)).arrayBuffer()).byteLength).toBe(MAX_BYTES);
    const slow = await serve((_req, res) => {
      res.writeHead(200);
      const timer = setInterval(() => res.write(' '), 50);
      res.on('close', () => clearInterval(timer));
    });
    // Collecting garbage while it waits: a deadline held only weakly (AbortSignal.timeout under
    // AbortSignal.any, as this fetch once had) was collected and never came.
    const collecting = setInterval(collectGarbage, 20);
    try {
      expect(await refusal(boundedFetch(slow.url, undefined, { ...allowPrivate, timeoutMs: 500 }))).toBe('timeout');
    } finally {
      clearInterval(collecting);
    }
  });

  it('follows a few redirects, checking each hop, and refuses more', async () => {
    const s = await serve((req, res) => {
      const n = Number(req.url?.split('/')[2] ?? 0);
      if (req.url?.startsWith('/loop/')) return res.writeHead(302, { location: `/loop/${n + 1}` }).end();
      if (req.url?.startsWith('/chain/') && n < 2) return res.writeHead(307, { location: `/chain/${n + 1}` }).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"at":"end"}');
    });
    const followed = await boundedFetch(`${s.url}/chain/0`, undefined, allowPrivate);
    expect(await followed.json()).toEqual({ at: 'end' });
    expect(followed.url).toBe(`${s.url}/chain/2`);
    s.tally.requests = 0;
    expect(await refusal(boundedFetch(`${s.url}/loop/0`, undefined, allowPrivate))).toBe('too_many_redirects');
    expect(s.tally.requests).toBe(4); // the first request and three redirects
  });

  it('refuses loopback and private addresses unless allowed, by literal and by name, before connecting', async () => {
    const s = await serve((_req, res) => res.end('{}'));
    for (const url of [s.url, `http://localhost:${s.port}`, `http://[::1]:${s.port}`, `http://0.0.0.0:${s.port}`, 'http://169.254.169.254/latest/meta-data'])
      expect(await refusal(boundedFetch(url, undefined, { allowPrivate: false, timeoutMs: 2000 })), url).toBe('private_address');
    expect(s.tally.requests).toBe(0);
    expect(await refusal(boundedFetch('file:///etc/passwd', undefined, { allowPrivate: true }))).toBe('unsupported_url');
  });

  it('keeps connections alive and reuses them, never a connection opened without the address check for a request that needs it', async () => {
    const sockets = new Set<unknown>();
    const s = await serve((req, res) => {
      sockets.add(req.socket);
      req.resume().on('end', () => res.end('ok'));
    });
    for (let i = 0; i < 5; i++) expect(await (await boundedFetch(s.url, { method: 'POST', body: 'packet' }, allowPrivate)).text()).toBe('ok');
    expect(sockets.size).toBe(1); // one connection for five requests (a peer gets one per ILP packet)
    // The kept connection was opened unchecked (allowed): a request that must be checked opens its
    // own, which the check refuses before it connects.
    expect(await refusal(boundedFetch(`http://localhost:${s.port}`, undefined, { allowPrivate: false }))).toBe('private_address');
    expect(s.tally.requests).toBe(5);
  });

  it("honours the request's redirect mode: 'error' follows none, 'manual' answers the redirect", async () => {
    const s = await serve((req, res) => (req.url === '/moved' ? res.writeHead(302, { location: '/there' }).end() : res.end('there')));
    expect(await refusal(boundedFetch(`${s.url}/moved`, { redirect: 'error' }, allowPrivate))).toBe('too_many_redirects');
    const manual = await boundedFetch(`${s.url}/moved`, { method: 'POST', body: '{}', redirect: 'manual' }, allowPrivate);
    expect([manual.status, manual.headers.get('location')]).toEqual([302, '/there']);
    expect(s.tally.requests).toBe(2); // neither went on to /there
  });

  it('answers the status of an answer too large to read when the caller reads its status alone', async () => {
    const s = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }); // chunked, and more than the cap
      void pour(res, { requests: 1, bytesSent: 0, hungUp: false }, 4 * MAX_BYTES);
    });
    expect((await boundedFetch(s.url, { method: 'POST', body: '{}' }, { ...allowPrivate, statusOnly: true })).status).toBe(200);
    expect(await refusal(boundedFetch(s.url, { method: 'POST', body: '{}' }, allowPrivate))).toBe('too_large');
  });
});

describe('the service, asked to fetch from hostile servers', () => {
  let stack: TestStack;
  let alice: string;
  beforeAll(async () => {
    stack = await startTestStack({ EXCHANGE_RATES_URL: '' });
    await ok(stack.admin('POST', '/assets', { code: 'USD', scale: 2 }));
    alice = (await ok(stack.admin('POST', '/wallet-addresses', { address: `${stack.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
  });
  afterAll(() => stack?.stop());

  // A client whose wallet address is on `server`: it signs a grant request with a key of its own.
  async function grantFrom(walletAddressUrl: string, keyId = 'k1', privateKey = generateKeyPairSync('ed25519').privateKey) {
    const api = await createAuthenticatedClient({ walletAddressUrl, privateKey, keyId, validateResponses: false });
    return api.grant.request({ url: stack.authServerUrl }, { access_token: { access: [{ type: 'incoming-payment', actions: ['create'] }] } }).then(
      () => ({ status: 200, code: 'none', description: '' }),
      (e) => ({ status: e.status, code: e.code, description: String(e.description) }),
    );
  }

  it('refuses a grant whose client serves a 150 MB key set, four at once, having read no more than the cap of each', async () => {
    const s = await serve((_req, res, tally) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"keys":[');
      void pour(res, tally, HUGE);
    });
    const answers = await Promise.all([1, 2, 3, 4].map((n) => grantFrom(`${s.url}/client-${n}`)));
    for (const a of answers)
      expect(a).toMatchObject({ status: 401, code: 'invalid_client', description: expect.stringContaining(`larger than ${MAX_BYTES} bytes`) });
    expect(s.tally.requests).toBe(4);
    await expect.poll(() => s.tally.hungUp).toBe(true);
    expect(s.tally.bytesSent).toBeLessThan(4 * BUFFERED);
  });

  it('follows a client key set through two redirects, and refuses one behind endless redirects', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const keys = JSON.stringify({ keys: [generateJwk({ privateKey, keyId: 'moved-key' })] });
    const s = await serve((req, res) => {
      if (req.url === '/moved/jwks.json') return res.writeHead(301, { location: '/hop/jwks.json' }).end();
      if (req.url === '/hop/jwks.json') return res.writeHead(302, { location: '/final/jwks.json' }).end();
      if (req.url === '/final/jwks.json') return res.writeHead(200, { 'content-type': 'application/json' }).end(keys);
      res.writeHead(302, { location: `/loop${req.url}` }).end();
    });
    expect(await grantFrom(`${s.url}/moved`, 'moved-key', privateKey)).toMatchObject({ status: 200 });
    expect(await grantFrom(`${s.url}/looping`)).toMatchObject({ status: 401, code: 'invalid_client', description: expect.stringContaining('redirects') });
  });

  it('answers 502 receiver_unreachable for a remote receiver whose answer never ends, having read no more than the cap', async () => {
    const s = await serve((_req, res, tally) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"authServer":"');
      void pour(res, tally, Number.POSITIVE_INFINITY, Buffer.alloc(16 * 1024, 0x61));
    });
    const res = await stack.admin('POST', '/quotes', { walletAddress: alice, receiver: `${s.url}/incoming-payments/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c` });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ code: 'receiver_unreachable', detail: expect.stringContaining(`larger than ${MAX_BYTES} bytes`) });
    await expect.poll(() => s.tally.hungUp).toBe(true);
    expect(s.tally.bytesSent).toBeLessThan(BUFFERED);
  });

  it("answers 502 receiver_unreachable with the receiver's status, never its body", async () => {
    const secret = 'SECRET-INSIDE-BODY';
    const errors = await serve((_req, res) => res.writeHead(500, { 'content-type': 'application/json' }).end(`{"error":{"description":"${secret}"}}`));
    const html = await serve((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(`<html>${secret}</html>`));
    for (const [s, says] of [
      [errors, 'HTTP 500'],
      [html, 'not JSON'],
    ] as const) {
      const res = await stack.admin('POST', '/quotes', { walletAddress: alice, receiver: `${s.url}/incoming-payments/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c` });
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ code: 'receiver_unreachable', detail: expect.stringContaining(says) });
      expect(JSON.stringify(res.body), says).not.toMatch(/SECRET|html>/);
    }
  });
});
