import { execFileSync, spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators';
import { ROOT } from '../../infra/local/serverless-config';
import { adminClient } from '../stack';
import { ok, waitFor } from '../world';

// `npm run offline` as a user runs it, on free ports: serverless-offline serves the signed Admin
// API from serverless.yml's http events, the local gateway the resource server from
// infra/resources.yml, both on the same emulators; a signal to the process group stops every
// process it started (serverless, DynamoDB Local's JVM).
const SECRET = 'offline-test-secret-123456';
const PORTS = ['ADMIN_PORT', 'OPEN_PAYMENTS_PORT', 'AUTH_SERVER_PORT', 'CONNECTOR_PORT', 'LAMBDA_PORT', 'DYNAMODB_PORT', 'SQS_PORT', 'EVENTBRIDGE_PORT'];

// The processes left in a process group (pgrep exits 1 when there are none).
function groupProcesses(pgid: number): string[] {
  try {
    return execFileSync('pgrep', ['-a', '-g', String(pgid)])
      .toString()
      .trim()
      .split('\n');
  } catch {
    return [];
  }
}

describe('npm run offline', () => {
  it('serves the signed Admin API and, beside it, the resource server; SIGINT stops every process', async () => {
    const ports = Object.fromEntries(await Promise.all(PORTS.map(async (name) => [name, String(await freePort())])));
    const env = { ...process.env, ...ports, ADMIN_API_SECRET: SECRET };
    const child = spawn('npm', ['run', 'offline'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const adminUrl = `http://localhost:${ports.ADMIN_PORT}`;
    const wallets = `http://localhost:${ports.OPEN_PAYMENTS_PORT}`;
    let left: string[] = [];
    try {
      // serverless-esbuild bundles every function before serverless-offline serves: most of the wait.
      const ready = () => /ready in [\d.]+ s/.test(output);
      const settled = async () => child.exitCode !== null || ready() || undefined;
      await waitFor('npm run offline to be ready', settled, 45_000).catch(() => undefined);
      expect(ready() && child.exitCode === null, output).toBe(true);
      expect(output).toContain(`Admin API                     ${adminUrl}   (serverless-offline`);
      expect(output).toContain(`Open Payments resource server ${wallets}   (local gateway`);

      const { admin, send } = adminClient(adminUrl, SECRET);
      expect(await ok(admin('POST', '/assets', { code: 'USD', scale: 2 }))).toMatchObject({ code: 'USD', scale: 2 });
      const address = `${wallets}/alice`;
      const created = await ok(admin('POST', '/wallet-addresses', { address, assetCode: 'USD', publicName: 'Alice' }));
      expect(await ok(admin('GET', `/wallet-addresses/${created.id}`), 200)).toEqual(created);

      // The wallet address document, from the resource server's own function, reading what the
      // Admin API's function wrote in the other process.
      const document = await fetch(address, { headers: { accept: 'application/json' } });
      expect(document.status).toBe(200);
      expect(await document.json()).toEqual({
        id: address,
        publicName: 'Alice',
        assetCode: 'USD',
        assetScale: 2,
        authServer: `http://localhost:${ports.AUTH_SERVER_PORT}`,
        resourceServer: wallets,
      });

      const body = JSON.stringify({ code: 'EUR', scale: 2 });
      const forged = `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`;
      const refused = await send('POST', '/assets', {
        body,
        headers: { 'content-type': 'application/json', signature: forged },
      });
      expect(refused.status).toBe(401);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.body).toMatchObject({ status: 401, code: 'unauthorized' });
    } finally {
      const pgid = child.pid!;
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-pgid, name);
        } catch {
          // the group has ended
        }
      };
      signal('SIGINT');
      const ended = async () => groupProcesses(pgid).length === 0 || undefined;
      await waitFor('every process of npm run offline to end', ended, 15_000).catch(() => undefined);
      left = groupProcesses(pgid);
      if (left.length) signal('SIGKILL'); // a failed stop leaves nothing behind either
    }
    expect(left, 'processes that SIGINT did not stop').toEqual([]);
  }, 60_000);
});
