import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { STACK_ENV_FILE } from '../../infra/local/defaults';
import { dynamoDbLocalPids } from '../../infra/local/emulators';
import { ROOT } from '../../infra/local/serverless-config';
import { NPM_NODE_SECRET as SECRET, startNpmNode as startNode } from '../node';
import { ok, waitFor } from '../world';

// `npm start` (and `npm run start:node-b`) as a user runs them: ready banner, a working Admin API,
// and a signal to the process group stops every child, DynamoDB Local's JVM included.

type StartNode = typeof startNode;

async function startAndStop(signal: NodeJS.Signals) {
  const node = await startNode('start');
  expect(node.output()).toContain(node.adminUrl);
  expect(node.output()).toContain(`ILP connector                 ${node.connector}   (ILP address test.node-a;`);
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

describe('npm run start:node-b', () => {
  // README "Pay across two nodes", on free ports: each node's own FSP simulator funds and is told.
  it('runs Node B beside Node A, and A pays an intent on B through the two connectors', async () => {
    const [a, b] = await Promise.all([startNode('start'), startNode('start:node-b')]);
    try {
      expect(b.output()).toContain('Payment service (Node B) ready');
      expect(b.output()).toContain('(ILP address test.node-b;');
      expect(b.output()).toContain('npm run admin -- --node b POST /assets');
      for (const node of [a, b]) await ok(node.admin('POST', '/assets', { code: 'USD', scale: 2 }));
      await ok(a.admin('POST', '/wallet-addresses', { address: `${a.wallets}/alice`, assetCode: 'USD', publicName: 'Alice' }));
      await ok(b.admin('POST', '/wallet-addresses', { address: `${b.wallets}/bob`, assetCode: 'USD', publicName: 'Bob' }));
      const peer = (staticIlpAddress: string, incoming: string, outgoing: string, endpoint: string) => ({
        staticIlpAddress,
        assetCode: 'USD',
        http: { incoming: { authTokens: [incoming] }, outgoing: { authToken: outgoing, endpoint } },
      });
      const peerOfA = await ok(a.admin('POST', '/peers', peer('test.node-b', 'node-b-to-node-a-local-token', 'node-a-to-node-b-local-token', b.connector)));
      const peerOfB = await ok(b.admin('POST', '/peers', peer('test.node-a', 'node-a-to-node-b-local-token', 'node-b-to-node-a-local-token', a.connector)));
      await ok(a.admin('POST', `/peers/${peerOfA.id}/liquidity`, { amount: '1000000' }), 200);
      await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);

      const intent = await ok(
        b.admin('POST', '/payment-intents', { walletAddress: `${b.wallets}/bob`, incomingAmount: { value: '5000', assetCode: 'USD', assetScale: 2 } }),
      );
      const quote = await ok(a.admin('POST', '/quotes', { walletAddress: `${a.wallets}/alice`, receiver: intent.url }));
      expect(quote).toMatchObject({ debitAmount: { value: '5000' }, receiveAmount: { value: '5000' } });
      const payment = await ok(a.admin('POST', '/payments', { walletAddress: `${a.wallets}/alice`, quoteId: quote.id }));
      // Node A's FSP simulator funds it on payment.created; nothing else does here.
      const done = await waitFor(
        'the payment to end',
        async () => {
          const p = await ok(a.admin('GET', `/payments/${payment.id}`), 200);
          return p.state === 'completed' || p.state === 'failed' ? p : undefined;
        },
        20_000,
      );
      expect(done).toMatchObject({ state: 'completed', sentAmount: { value: '5000', assetCode: 'USD' } });
      expect(await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({ state: 'completed', receivedAmount: { value: '5000' } });
      await waitFor("B's FSP to hear payment_intent.completed", async () => /\[fsp\] webhook payment_intent\.completed/.test(b.output()) || undefined);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  }, 90_000);
});
