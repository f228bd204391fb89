import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators/emulators';
import type { startFsp } from '../../infra/local/fsp/fsp';
import { LOCAL_ADMIN_API_SECRET, NODES } from '../../infra/local/start/defaults';
import { listen } from '../../infra/local/start/listen';
import { announceNode, nodeAdminUrl, type SigningProxy, startLocalProxy, startProxy } from '../../infra/local/tools/proxy';
import { startStackFsp } from '../harness/fsp';
import { startTestStack, type TestStack } from '../harness/stack';
import { bru, COLLECTION, failures, loadRequests } from '../readers/bruno';
import { TEST_WEBHOOK_SECRET } from '../servers/webhook-receiver';

// The signing proxy of the API collection: plain, unsigned requests in; the service's answers
// out, untouched. Nodes B and C are a port where nothing listens.
let s: TestStack;
let proxy: SigningProxy;
let nodeBDown: string;
let fspPort: number;
beforeAll(async () => {
  // Webhooks and rates go to npm start's FSP simulator, started for the collection below.
  fspPort = await freePort();
  s = await startTestStack({
    WEBHOOK_URL: `http://localhost:${fspPort}/webhooks`,
    EXCHANGE_RATES_URL: `http://localhost:${fspPort}/rates`,
    WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  });
  nodeBDown = `http://localhost:${await freePort()}`;
  proxy = await startProxy({ port: 0, secret: s.env.ADMIN_API_SECRET, nodeA: s.adminUrl, others: { b: () => nodeBDown, c: () => nodeBDown } });
});
afterAll(async () => {
  await proxy.stop();
  await s.stop();
});

async function send(method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(proxy.url + path, {
    method,
    body: init.body,
    headers: { ...(init.body && { 'content-type': 'application/json' }), ...init.headers },
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : undefined };
}

describe('the signing proxy', () => {
  it('signs an unsigned POST /assets (201) and GET /assets, which lists it', async () => {
    const created = await send('POST', '/assets', { body: JSON.stringify({ code: 'PRX', scale: 2 }) });
    expect(created.status).toBe(201);
    const listed = await send('GET', '/assets?limit=100');
    expect(listed.status).toBe(200);
    expect(listed.body.items).toContainEqual(created.body);
  });

  it("signs the tenant-id header it forwards (signature v3), so the operator's proxy acts for that tenant", async () => {
    const tenant = await send('POST', '/tenants', { body: JSON.stringify({ name: 'Proxied', walletAddressPrefix: `${s.openPaymentsUrl}/proxied` }) });
    expect(tenant.status).toBe(201);
    const headers = { 'tenant-id': tenant.body.id };
    expect((await send('POST', '/assets', { body: JSON.stringify({ code: 'PTN', scale: 2 }), headers })).status).toBe(201);
    const theirs = await send('GET', '/assets?limit=100', { headers });
    expect([theirs.status, theirs.body.items.map((a: { code: string }) => a.code)]).toEqual([200, ['PTN']]);
  });

  it('signs the query exactly as sent, encoded or not', async () => {
    await send('POST', '/assets', { body: JSON.stringify({ code: 'PRQ', scale: 0 }) });
    const one = await send('GET', '/assets?limit=1');
    expect(one.status).toBe(200);
    expect(one.body.items).toHaveLength(1);
    // A wallet address that does not exist: 404, so the signature over the encoded query held.
    const encoded = await send('GET', `/wallet-addresses?address=${encodeURIComponent(`${s.openPaymentsUrl}/nobody`)}`);
    expect(encoded.status, encoded.text).toBe(404);
  });

  it('signs the Idempotency-Key: a resend replays the first answer, another body under it is 422', async () => {
    const asset = (await send('POST', '/assets', { body: JSON.stringify({ code: 'PRI', scale: 2 }) })).body;
    const headers = { 'Idempotency-Key': 'proxy-deposit-1' };
    const deposit = (amount: string) => send('POST', `/assets/${asset.id}/liquidity`, { body: JSON.stringify({ amount }), headers });
    const first = await deposit('100');
    const again = await deposit('100');
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect((await send('GET', `/assets/${asset.id}`)).body.liquidity.value).toBe('100');
    const other = await deposit('200');
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
  });

  it("passes the service's problem+json through untouched", async () => {
    const body = JSON.stringify({ code: 'us', scale: 2, colour: 'red' });
    const through = await send('POST', '/assets', { body });
    const signature = s.sign('POST', '/assets', body);
    const direct = await fetch(`${s.adminUrl}/assets`, { method: 'POST', body, headers: { 'content-type': 'application/json', signature } });
    expect(through.status).toBe(400);
    expect(through.headers.get('content-type')).toBe('application/problem+json');
    expect(through.text).toBe(await direct.text());
    expect(through.body.errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['code', 'colour']));
  });

  it('replaces a signature the client sent', async () => {
    const res = await send('GET', '/assets?limit=1', { headers: { signature: 't=1, v3=00' } });
    expect(res.status).toBe(200);
  });

  it('answers /node-b/ and /node-c/ with a 502 problem saying how to start the node when it is not running', async () => {
    for (const node of ['b', 'c']) {
      const res = await send('GET', `/node-${node}/assets`);
      expect(res.status).toBe(502);
      expect(res.headers.get('content-type')).toBe('application/problem+json');
      expect(res.body).toMatchObject({ status: 502, code: 'node_not_running' });
      expect(res.body.detail).toContain(`Node ${node.toUpperCase()} is not running`);
      expect(res.body.detail).toContain(`npm run start:node-${node}`);
    }
  });

  it('sends /node-b/<path> to Node B and /node-c/<path> to Node C, signed for the path without the prefix', async () => {
    for (const node of ['b', 'c']) {
      const toOther = await startProxy({ port: 0, secret: s.env.ADMIN_API_SECRET, nodeA: nodeBDown, others: { [node]: () => s.adminUrl } });
      try {
        const res = await fetch(`${toOther.url}/node-${node}/assets?limit=1`);
        expect(res.status).toBe(200);
        expect((await res.json()).items).toHaveLength(1);
        expect((await fetch(`${toOther.url}/assets`)).status).toBe(502); // Node A is the one down here
      } finally {
        await toOther.stop();
      }
    }
  });

  it('refuses requests not addressed to localhost, and those a web page of another site sent', async () => {
    const status = (headers: Record<string, string>) =>
      new Promise<number>((done, fail) => {
        request(`${proxy.url}/assets`, { headers }, (res) => {
          res.resume();
          done(res.statusCode!);
        })
          .on('error', fail)
          .end();
      });
    expect(await status({ host: 'attacker.example' })).toBe(403);
    expect(await status({ origin: 'https://attacker.example' })).toBe(403);
    expect(await status({ origin: 'http://localhost:5173' })).toBe(200);
  });

  it('finds Node B (and C) where it says its Admin API is, else on its default port', async () => {
    for (const node of ['b', 'c'] as const) {
      const dataDir = mkdtempSync(join(tmpdir(), 'proxy-test-'));
      expect(nodeAdminUrl(node, dataDir)).toBe(`http://localhost:${NODES[node].ports.admin}`);
      const announced = announceNode(node, dataDir, 'http://localhost:4555');
      expect(nodeAdminUrl(node, dataDir)).toBe('http://localhost:4555');
      await announced.stop();
      expect(nodeAdminUrl(node, dataDir)).toBe(`http://localhost:${NODES[node].ports.admin}`);
    }
  });
});

describe("npm start's proxy", () => {
  it('refuses to run with a secret that is not the local default, unless PROXY_ALLOW_CUSTOM_SECRET=1', async () => {
    const refused = await startLocalProxy({ adminUrl: s.adminUrl, secret: s.env.ADMIN_API_SECRET, env: { PROXY_PORT: '0' } });
    expect(refused.line).toMatch(/^off: ADMIN_API_SECRET is not the local default.*PROXY_ALLOW_CUSTOM_SECRET=1/);

    const optIn = { PROXY_PORT: '0', PROXY_ALLOW_CUSTOM_SECRET: '1' };
    const allowed = await startLocalProxy({ adminUrl: s.adminUrl, secret: s.env.ADMIN_API_SECRET, env: optIn });
    try {
      const url = /^(http:\/\/localhost:\d+) /.exec(allowed.line)?.[1];
      expect(allowed.line).toContain('signs with your ADMIN_API_SECRET');
      expect((await fetch(`${url}/assets?limit=1`)).status).toBe(200);
    } finally {
      await allowed.stop();
    }

    const local = await startLocalProxy({ adminUrl: s.adminUrl, secret: LOCAL_ADMIN_API_SECRET, env: { PROXY_PORT: '0' } });
    await local.stop();
    expect(local.line).toMatch(/^http:\/\/localhost:\d+ {3}\(signs for you/);
  });

  it('does not fail when its port cannot be had: the line says why and how to pick another', async () => {
    const taken = await listen(createServer(), 0);
    try {
      const { port } = taken;
      const proxy = await startLocalProxy({ adminUrl: s.adminUrl, secret: LOCAL_ADMIN_API_SECRET, env: { PROXY_PORT: String(port) } });
      expect(proxy.line).toBe(`off: could not listen on port ${port}: port ${port} is in use; pick another port, e.g. PROXY_PORT=8080 npm start`);
    } finally {
      await taken.stop();
    }
  });
});

// The API collection, run by Bruno's CLI as a user runs it (`bru run --env node-a` in bruno/), on
// this file's fresh stack with npm start's FSP simulator (it funds payments and takes webhooks),
// unsigned through the proxy. Every request asserts its status and fields; bru exits 1 on any
// failed assertion.
describe('the API collection (bruno/), run by bru through the proxy', () => {
  let fsp: Awaited<ReturnType<typeof startFsp>>;
  let proxyA: SigningProxy;
  let vars: Record<string, string>;
  beforeAll(async () => {
    fsp = await startStackFsp(s, fspPort, {
      autoFund: true,
    });
    proxyA = await startProxy({ port: 0, secret: s.env.ADMIN_API_SECRET, nodeA: s.adminUrl, others: { b: () => nodeBDown } });
    vars = { proxyPort: new URL(proxyA.url).port, walletAddressUrl: s.env.WALLET_ADDRESS_URL };
  });
  afterAll(async () => {
    await proxyA?.stop();
    await fsp?.stop();
  });

  it('passes top to bottom on fresh data, every request asserting its answer', async () => {
    const run = await bru(COLLECTION, ['--env', 'node-a'], vars);
    expect(failures(run)).toEqual([]);
    expect(run.code, run.output).toBe(0);
    expect(run.summary).toMatchObject({ totalRequests: loadRequests().length, failedRequests: 0, errorRequests: 0, failedAssertions: 0, failedTests: 0 });
    for (const r of run.results) expect(r.assertionResults.length, `${r.test.filename} asserts nothing`).toBeGreaterThan(0);
    // What the story did, seen from the FSP's side: the payment it funded completed.
    const received = (await (await fetch(`${fsp.url}/webhooks`)).json()) as Array<{ type: string; verified: boolean }>;
    expect(received.map((e) => e.type)).toContain('payment.completed');
  });

  it('fails, exit status 1, when an answer breaks one expectation', async () => {
    const copy = mkdtempSync(join(tmpdir(), 'bruno-broken-'));
    cpSync(COLLECTION, copy, { recursive: true });
    const file = join(copy, 'rates/get-a-rate.bru');
    writeFileSync(file, readFileSync(file, 'utf8').replace('res.body.rate: eq 0.92', 'res.body.rate: eq 0.93'));
    const run = await bru(copy, ['rates', '--env', 'node-a'], vars);
    expect(run.code, run.output).toBe(1);
    expect(run.summary, run.output).toMatchObject({ totalRequests: 2, failedAssertions: 1 });
  });
});
