import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators/emulators';
import { startFsp } from '../../infra/local/fsp/fsp';
import { startConsole } from '../../infra/local/start/console';
import { LOCAL_ADMIN_API_SECRET } from '../../infra/local/start/defaults';
import { isOwnHost, publicHosts } from '../../infra/local/start/listen';
import { ROOT } from '../../infra/local/start/serverless-config';
import { startProxy } from '../../infra/local/tools/proxy';
import { startTestStack, type TestStack } from '../harness/stack';
import { TEST_WEBHOOK_SECRET } from '../servers/webhook-receiver';

// Issue 28, item 7: the local servers answered any Host header, so a web page whose name DNS
// rebinding pointed at 127.0.0.1 could read them (the FSP simulator's /webhooks and
// /consent/decisions among them). Each now answers only to its loopback names with its port, and
// to the hosts of the node's public URLs.
const WALLETS = 'http://wallets.example:8443';
let s: TestStack;
const servers: Record<string, string> = {};
const stops: Array<() => Promise<void>> = [];

beforeAll(async () => {
  s = await startTestStack({ ADMIN_API_SECRET: LOCAL_ADMIN_API_SECRET, WALLET_ADDRESS_URL: WALLETS });
  const fsp = await startFsp({
    port: 0,
    ratesFile: join(ROOT, 'infra/local/fsp/fsp-rates.json'),
    webhookSecret: TEST_WEBHOOK_SECRET,
    adminUrl: s.adminUrl,
    adminSecret: LOCAL_ADMIN_API_SECRET,
    autoFund: false,
    authServerUrl: s.authServerUrl,
    idpSecret: s.env.IDP_SECRET,
    hosts: publicHosts(s.env),
  });
  const console = await startConsole({ port: 0, adminUrl: s.adminUrl, operators: s.operators, metrics: s.metrics, traces: s.traces });
  const proxy = await startProxy({ port: 0, secret: LOCAL_ADMIN_API_SECRET, nodeA: s.adminUrl });
  stops.push(fsp.stop, console.stop, proxy.stop);
  Object.assign(servers, {
    'Admin API': `${s.adminUrl}/assets`,
    'resource server': `${s.openPaymentsUrl}/alice`,
    'authorization server': `${s.authServerUrl}/`,
    connector: s.connectorUrl,
    'FSP webhooks': `${fsp.url}/webhooks`,
    'FSP consent decisions': `${fsp.url}/consent/decisions`,
    'console metrics': `${console.url}/local/dashboard`,
    'console traces': `${console.url}/local/traces`,
    'signing proxy': `${proxy.url}/assets`,
    'SQS emulator': s.endpoints.sqs,
    'EventBridge emulator': s.endpoints.eventbridge,
    'Lambda emulator': s.endpoints.lambda,
  });
});
afterAll(async () => {
  for (const stop of stops) await stop();
  await s.stop();
});

// A GET with the Host header given: the status, and the problem's code if any.
const get = (url: string, host: string) =>
  new Promise<{ status: number; code?: string }>((done, fail) => {
    request(url, { headers: { host } }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => {
        let code: string | undefined;
        try {
          code = JSON.parse(body).code;
        } catch {
          // not JSON
        }
        done({ status: res.statusCode!, code });
      });
    })
      .on('error', fail)
      .end();
  });

describe('every local server', () => {
  it('refuses a Host that is not one of its names with 403 host_refused, and answers its own', async () => {
    // A port on localhost that nothing listens on (the next port up may be one of the node's own).
    const elsewhere = await freePort();
    for (const [name, url] of Object.entries(servers)) {
      const { host, port } = new URL(url);
      for (const other of [`rebound.example:${port}`, 'rebound.example', `localhost:${elsewhere}`, `127.0.0.1.example:${port}`, `evil@localhost:${port}`])
        expect(await get(url, other), `${name}, Host ${other}`).toEqual({ status: 403, code: 'host_refused' });
      for (const own of [host, `127.0.0.1:${port}`, `LOCALHOST:${port}`]) expect((await get(url, own)).code, `${name}, Host ${own}`).not.toBe('host_refused');
    }
  });

  it("answers the hosts of the node's public URLs too (a peer or a tunnel that reaches it under that name)", async () => {
    expect(await get(servers['resource server'], 'wallets.example:8443')).toEqual({ status: 404, code: 'wallet_address_not_found' });
    expect(await get(servers['FSP webhooks'], 'wallets.example:8443')).toMatchObject({ status: 200 });
    expect(await get(servers['resource server'], 'wallets.example')).toEqual({ status: 403, code: 'host_refused' }); // another port
    // Never the console's or the proxy's, which sign for whoever reaches them.
    expect(await get(servers['console metrics'], 'wallets.example:8443')).toEqual({ status: 403, code: 'host_refused' });
    expect(await get(servers['signing proxy'], 'wallets.example:8443')).toEqual({ status: 403, code: 'host_refused' });
  });
});

describe('isOwnHost', () => {
  it('takes a loopback name with the port (none for 80) and the hosts given, nothing else', () => {
    expect(isOwnHost('localhost:3000', 3000, [])).toBe(true);
    expect(isOwnHost('[::1]:3000', 3000, [])).toBe(true);
    expect(isOwnHost('localhost', 80, [])).toBe(true);
    expect(isOwnHost('localhost', 3000, [])).toBe(false);
    expect(isOwnHost(undefined, 3000, [])).toBe(false);
    expect(isOwnHost('node-a.example', 3000, ['node-a.example'])).toBe(true);
    expect(isOwnHost('node-a.example:3000', 3000, ['node-a.example'])).toBe(false);
    expect(
      publicHosts({ WALLET_ADDRESS_URL: 'https://Wallet.Example/', AUTH_SERVER_URL: 'http://auth.example:81', LOCAL_ALLOWED_HOSTS: ' Peer.Example , ' }),
    ).toEqual(['wallet.example', 'auth.example:81', 'peer.example']);
  });
});
