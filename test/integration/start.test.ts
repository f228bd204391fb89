import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STACK_ENV_FILE } from '../../infra/local/defaults';
import { dynamoDbLocalPids } from '../../infra/local/emulators';
import { startProxy } from '../../infra/local/proxy';
import { ROOT } from '../../infra/local/serverless-config';
import { bru, COLLECTION, failures, loadRequests } from '../bruno';
import { freePorts, NPM_NODE_SECRET as SECRET, startNpmNode as startNode } from '../node';
import { paste, readmeBlocks } from '../readme';
import { ok, waitFor } from '../world';

// `npm start` (and `npm run start:node-b`) as a user runs them: ready banner, a working Admin API,
// and a signal to the process group stops every child, DynamoDB Local's JVM included.

type StartNode = typeof startNode;

async function startAndStop(signal: NodeJS.Signals) {
  const node = await startNode('start');
  expect(node.output()).toContain(node.adminUrl);
  expect(node.output()).toContain(`ILP connector                 ${node.connector}   (ILP address test.node-a;`);
  // A secret of the user's own (the test's): the console's back office stays off without the opt-in
  // (issue 28, item 6: it signed an unsigned request for anyone on the machine).
  expect(node.output()).toContain(
    `Console                       ${node.console}   (dashboard and alarms; traces; back office off: your ADMIN_API_SECRET is signed for only with PROXY_ALLOW_CUSTOM_SECRET=1)`,
  );
  const unsigned = await fetch(`${node.console}/admin/assets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"code":"XXX","scale":2}',
  });
  expect(unsigned.status).toBe(403);
  expect((await ok(node.admin('GET', '/assets'), 200)).items).toEqual([]);
  const openapi = await fetch(`${node.adminUrl}/openapi.json`);
  expect(openapi.status).toBe(200);
  expect(dynamoDbLocalPids(node.ports.DYNAMODB_PORT).length).toBeGreaterThan(0);
  // The functions' environment, for `serverless offline` while the node runs (it holds the secrets).
  const envFile = join(node.dataDir, STACK_ENV_FILE);
  expect(JSON.parse(readFileSync(envFile, 'utf8'))).toMatchObject({
    ADMIN_API_SECRET: SECRET,
    ILP_ADDRESS: 'test.node-a',
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${node.ports.DYNAMODB_PORT}`,
  });
  expect(statSync(envFile).mode & 0o777).toBe(0o600);
  await node.stop(signal);
  expect(dynamoDbLocalPids(node.ports.DYNAMODB_PORT)).toEqual([]);
  expect(existsSync(envFile)).toBe(false);
}

describe('npm start', () => {
  it('is ready within 20 s and SIGINT stops everything', () => startAndStop('SIGINT'), 40_000);

  // A second node on taken ports ended in a raw EADDRINUSE stack trace that named no setting.
  it('names the setting of a taken port in one line, without a stack trace, and leaves nothing running', async () => {
    for (const taken of ['FSP_PORT', 'ADMIN_PORT', 'CONNECTOR_PORT', 'CONSOLE_PORT'] as const) {
      const ports = await freePorts();
      const holder = createServer();
      await new Promise<void>((ok) => holder.listen(ports[taken], '127.0.0.1', () => ok()));
      try {
        const run = spawnSync('npm', ['start'], {
          cwd: ROOT,
          env: {
            ...process.env,
            ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
            LOCAL_DATA_DIR: mkdtempSync(join(tmpdir(), 'taken-')),
          },
          encoding: 'utf8',
          timeout: 60_000,
        });
        const output = run.stdout + run.stderr;
        expect(run.status, output).not.toBe(0);
        expect(output).toContain(`error: port ${ports[taken]} (${taken}) is in use`);
        expect(output).toContain(`${taken}=<free port> npm start`);
        expect(output).not.toMatch(/^\s+at /m);
        // (a JVM that was started is stopped as the start gives up; its exit may take a moment)
        for (let i = 0; i < 50 && dynamoDbLocalPids(ports.DYNAMODB_PORT).length; i++) await new Promise((r) => setTimeout(r, 100));
        expect(dynamoDbLocalPids(ports.DYNAMODB_PORT)).toEqual([]);
      } finally {
        await new Promise((ok) => holder.close(ok));
      }
    }
  }, 200_000);

  it('SIGTERM stops everything too', () => startAndStop('SIGTERM'), 40_000);
});

describe('the local data', () => {
  const codes = async (node: Awaited<ReturnType<typeof startNode>>) => (await ok(node.admin('GET', '/assets'), 200)).items.map((a: { code: string }) => a.code);

  it('is kept across a restart, survives a crash of Node (the JVM it left is stopped), and is wiped by --fresh and npm run reset', async () => {
    const running: Array<Awaited<ReturnType<typeof startNode>>> = [];
    const tracked: StartNode = async (...args) => {
      const node = await startNode(...args);
      running.push(node);
      return node;
    };
    try {
      await restartAndWipe(tracked);
    } finally {
      // A failed assertion leaves no node behind (stop() on a stopped one is a no-op).
      for (const node of running) await node.stop().catch(() => undefined);
    }
  }, 120_000);

  async function restartAndWipe(startNode: StartNode) {
    const first = await startNode('start');
    expect(first.output()).toContain(`Data          ${first.dataDir}/ (kept across restarts; npm run reset wipes it)`);
    await ok(first.admin('POST', '/assets', { code: 'KEPT', scale: 2 }));
    await first.stop();

    const second = await startNode('start', { ports: first.ports, dataDir: first.dataDir });
    expect(await codes(second)).toEqual(['KEPT']);
    await ok(second.admin('POST', '/assets', { code: 'CRASH', scale: 2 }));
    await second.crash(); // its DynamoDB Local stays, holding the port and the files
    expect(dynamoDbLocalPids(first.ports.DYNAMODB_PORT).length).toBeGreaterThan(0);

    const third = await startNode('start', { ports: first.ports, dataDir: first.dataDir });
    expect(third.output()).toContain(`Stopping a DynamoDB Local that an earlier run left on port ${first.ports.DYNAMODB_PORT}`);
    expect((await codes(third)).sort()).toEqual(['CRASH', 'KEPT']);
    const refused = spawnSync('npm', ['run', '-s', 'reset'], { cwd: ROOT, env: { ...process.env, LOCAL_DATA_DIR: first.dataDir } });
    expect(refused.status).toBe(1); // not while it runs
    await third.stop();

    const fresh = await startNode('start', { ports: first.ports, dataDir: first.dataDir, args: ['--fresh'] });
    expect(await codes(fresh)).toEqual([]);
    await ok(fresh.admin('POST', '/assets', { code: 'AGAIN', scale: 2 }));
    await fresh.stop();
    const reset = spawnSync('npm', ['run', '-s', 'reset'], { cwd: ROOT, env: { ...process.env, LOCAL_DATA_DIR: first.dataDir } });
    expect(reset.status, reset.stderr.toString()).toBe(0);
    expect(existsSync(join(first.dataDir, 'dynamodb'))).toBe(false);
    expect(existsSync(join(first.dataDir, 'sqs'))).toBe(false); // the queues' journal too
    expect(existsSync(join(first.dataDir, 'secrets.json'))).toBe(true); // the node keeps its identity
  }
});

describe('the README walkthroughs, each block pasted whole into bash', () => {
  it('"Walk through a payment" reaches its commented results, and npm start prints no JSON log line', async () => {
    const a = await startNode('start');
    try {
      const [block] = readmeBlocks('Walk through a payment');
      const { stdout, stderr, answers } = await paste(block, { a });
      expect(
        answers.map((x) => x.status),
        stdout + stderr,
      ).toEqual([201, 200, 201, 201, 200, 200]);
      const [payment, intent] = answers.slice(-2).map((x) => x.body);
      expect(payment).toMatchObject({ state: 'completed', sentAmount: { value: '10000', assetCode: 'USD', assetScale: 2 } });
      expect(intent).toMatchObject({ state: 'completed', receivedAmount: { value: '9200', assetCode: 'EUR', assetScale: 2 } });
      const webhooks: Array<{ type: string; verified: boolean }> = JSON.parse(stdout.trim().split('\n').at(-1)!);
      expect(webhooks.map((e) => e.type)).toEqual(expect.arrayContaining(['payment_intent.created', 'payment.created', 'payment.funded']));
      expect(webhooks.every((e) => e.verified)).toBe(true);
      // Quiet by default (docs/configuration.md: LOG_LEVEL): the FSP's lines, no JSON log line.
      expect(a.output()).toMatch(/\[fsp\] funded payment [0-9a-f-]+ -> 200/);
      expect(a.output()).not.toContain('"level":');
      expect(a.output()).not.toContain('NodeVersionSupportWarning');
    } finally {
      await a.stop();
    }
  }, 90_000);

  // On Node B, LOG_LEVEL=INFO brings the JSON line of each request back.
  it('"Pay across two nodes" and "Across currencies" reach their commented results, through both connectors', async () => {
    const [a, b] = await Promise.all([startNode('start'), startNode('start:node-b', { env: { LOG_LEVEL: 'INFO' } })]);
    try {
      expect(b.output()).toContain('Payment service (Node B) ready');
      expect(b.output()).toContain('(ILP address test.node-b;');
      expect(b.output()).toContain('npm run admin -- --node b POST /assets');
      const [same, across] = readmeBlocks('Pay across two nodes');
      const { stdout, stderr, answers } = await paste(`${same}\n${across}`, { a, b });
      expect(
        answers.map((x) => x.status),
        stdout + stderr,
      ).toEqual([201, 201, 200, 201, 201, 200, 200, 200, 200, 200, 200, 201, 201, 201, 200, 200]);
      const [payment, intent, peerOfA, peerOfB] = answers.slice(6, 10).map((x) => x.body);
      expect(payment).toMatchObject({ state: 'completed', sentAmount: { value: '5000', assetCode: 'USD' } });
      expect(intent).toMatchObject({ state: 'completed', receivedAmount: { value: '5000', assetCode: 'USD' } });
      expect(peerOfA.liquidity).toMatchObject({ value: '1005000', assetCode: 'USD' });
      expect(peerOfB.liquidity).toMatchObject({ value: '995000', assetCode: 'USD' });
      const [quote, eurIntent] = answers.slice(-2).map((x) => x.body);
      expect(quote).toMatchObject({ debitAmount: { value: '10000', assetCode: 'USD' }, receiveAmount: { value: '9000', assetCode: 'EUR' } });
      expect(eurIntent).toMatchObject({ state: 'completed', receivedAmount: { value: '9000', assetCode: 'EUR' } });
      await waitFor("B's FSP to hear payment_intent.completed", async () => /\[fsp\] webhook payment_intent\.completed/.test(b.output()) || undefined);
      expect(b.output()).toMatch(/"level":"INFO","message":"request"/);
      expect(a.output()).not.toContain('"level":');
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 120_000);
});

// The collection's second pass (docs/api.md, "API collection and signing proxy"): the node-b
// environment through npm start's proxy's /node-b/ route, against `npm run start:node-b` on fresh
// data with its own FSP simulator. (Node A's pass runs in proxy.test.ts.)
describe('the API collection on Node B', () => {
  it('bru run --env node-b passes top to bottom', async () => {
    const b = await startNode('start:node-b');
    const proxy = await startProxy({ port: 0, secret: SECRET, nodeA: 'http://localhost:1', nodeB: () => b.adminUrl });
    try {
      const run = await bru(COLLECTION, ['--env', 'node-b'], { proxyPort: new URL(proxy.url).port, walletAddressUrl: b.wallets });
      expect(failures(run)).toEqual([]);
      expect(run.code, run.output).toBe(0);
      expect(run.summary).toMatchObject({ totalRequests: loadRequests().length, failedRequests: 0, failedAssertions: 0 });
    } finally {
      await proxy.stop();
      await b.stop();
    }
  }, 90_000);
});
