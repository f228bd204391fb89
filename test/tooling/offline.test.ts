import { execFile, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators/emulators';
import { STACK_ENV_FILE } from '../../infra/local/start/defaults';
import { ROOT } from '../../infra/local/start/serverless-config';
import { adminClient, startTestStack } from '../harness/stack';
import { ok, waitFor } from '../harness/world';

// serverless-offline serving the signed Admin API from serverless.yml's http events, on the local
// stack's emulators: as `npm run offline` runs it (with the resource server beside it from the
// local gateway), and as the README's `npx serverless offline start` runs it beside a running
// stack. On free ports; a signal to the process group stops every process started (serverless,
// esbuild, DynamoDB Local's JVM).
const SECRET = 'offline-test-secret-123456';
// Backstops, not clocks: readiness is waited for as the line that says so. serverless-esbuild bundles
// every function, in one esbuild build (infra/serverless/offline.cjs), before serverless-offline serves:
// the first test, start to stop, took 14 s at load 2.5 (39 s with a build per function), far longer
// under load. Each test's own timeout is both backstops and a minute more.
const READY_MS = 240_000;
const STOP_MS = 60_000;
// Every port `npm run offline` listens on (stackPorts, and serverless-offline's): a default one left
// would be another test run's too (two runs at once met on the Secrets Manager emulator's 4012).
const PORTS = [
  'ADMIN_PORT',
  'OPEN_PAYMENTS_PORT',
  'AUTH_SERVER_PORT',
  'CONNECTOR_PORT',
  'LAMBDA_PORT',
  'DYNAMODB_PORT',
  'SQS_PORT',
  'EVENTBRIDGE_PORT',
  'SECRETS_MANAGER_PORT',
];

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

// Sends SIGINT to the process group, waits for it to end (SIGKILL if it does not: a failed stop
// leaves nothing behind either), and returns what SIGINT left.
async function stopGroup(pgid: number): Promise<string[]> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pgid, name);
    } catch {
      // the group has ended
    }
  };
  signal('SIGINT');
  const ended = async () => groupProcesses(pgid).length === 0 || undefined;
  await waitFor(`every process of group ${pgid} to end`, ended, STOP_MS).catch(() => undefined);
  const left = groupProcesses(pgid);
  if (left.length) signal('SIGKILL');
  return left;
}

// A 401 problem for a forged signature, from the Admin API at `send`'s URL.
async function expectForgedRefused(send: ReturnType<typeof adminClient>['send']) {
  const forged = `t=${Math.floor(Date.now() / 1000)},v3=${'0'.repeat(64)}`;
  const refused = await send('POST', '/assets', {
    body: JSON.stringify({ code: 'EUR', scale: 2 }),
    headers: { 'content-type': 'application/json', signature: forged },
  });
  expect(refused.status).toBe(401);
  expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(refused.body).toMatchObject({ status: 401, code: 'unauthorized' });
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
      await waitFor('npm run offline to be ready', settled, READY_MS, 250).catch(() => undefined);
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

      await expectForgedRefused(send);
    } finally {
      left = await stopGroup(child.pid!);
    }
    expect(left, 'processes that SIGINT did not stop').toEqual([]);
  });
});

describe('npx serverless offline start', () => {
  // docs/local-run.md, "serverless-offline": beside a running stack (here this file's, which writes its
  // functions' environment to its data folder as npm start does), the plain command from the
  // repository's root. The bundles go to that data folder, so `serverless package` (test/tooling/package/)
  // can build in .esbuild/ at the same time.
  it("serves the signed Admin API from the bundles on the running stack's tables; it asks for npm start without one", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'offline-test-'));
    const envFile = join(dataDir, STACK_ENV_FILE);
    const [httpPort, lambdaPort] = await Promise.all([freePort(), freePort()]);
    const serverless = join(ROOT, 'node_modules/.bin/serverless');
    const args = ['offline', 'start', '--stage', 'local', '--httpPort', String(httpPort), '--lambdaPort', String(lambdaPort)];
    // A shell's environment: nothing of the stack's (startStack puts it in this process's too).
    const shell = (stackEnv: Record<string, string> = {}) => ({
      ...Object.fromEntries(Object.entries(process.env).filter(([name]) => !(name in stackEnv))),
      LOCAL_DATA_DIR: dataDir,
    });

    const alone = promisify(execFile)(serverless, args, { cwd: ROOT, env: shell() });
    await expect(alone).rejects.toMatchObject({ stdout: expect.stringContaining('start one with `npm start` first') });

    const stack = await startTestStack({ ADMIN_API_SECRET: SECRET }, { envFile });
    expect(statSync(envFile).mode & 0o777).toBe(0o600); // it holds the secrets
    const child = spawn(serverless, args, { cwd: ROOT, env: shell(stack.env), detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    let left: string[] = [];
    let envFileLeft = true;
    try {
      const ready = () => /Server ready: /.test(output);
      const settled = async () => child.exitCode !== null || ready() || undefined;
      await waitFor('serverless offline to be ready', settled, READY_MS, 250).catch(() => undefined);
      expect(ready() && child.exitCode === null, output).toBe(true);

      // Signed with the stack's secret, written to the stack's tables: both come from the stack.
      const { admin, send } = adminClient(`http://localhost:${httpPort}`, SECRET);
      const asset = await ok(admin('POST', '/assets', { code: 'USD', scale: 2 }));
      expect(asset).toMatchObject({ code: 'USD', scale: 2 });
      expect(await ok(admin('GET', `/assets/${asset.id}`), 200)).toMatchObject(asset);
      expect(await ok(stack.admin('GET', `/assets/${asset.id}`), 200)).toMatchObject(asset);
      await expectForgedRefused(send);
      // A route it lacks: the service's problem, as API Gateway answers, not serverless-offline's JSON.
      const unknown = await send('DELETE', '/assets');
      expect(unknown.status).toBe(404);
      expect(unknown.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const { _, ...definitions } = JSON.parse(readFileSync(join(ROOT, 'infra/gateway-responses.json'), 'utf8'));
      const { status, code, title, detail } = definitions.MISSING_AUTHENTICATION_TOKEN;
      expect(unknown.body).toEqual({ type: `urn:payment-service:problem:${code}`, title, status, code, detail, requestId: expect.any(String) });
    } finally {
      left = await stopGroup(child.pid!);
      await stack.stop();
      envFileLeft = existsSync(envFile);
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(left, 'processes that SIGINT did not stop').toEqual([]);
    expect(envFileLeft, 'the environment file after the stack stopped').toBe(false);
  });
});
