import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { DynamoDBClient, ListTablesCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import { inject } from 'vitest';
import { freePort, LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import type { Trace } from '../../infra/local/emulators/traces';
import { DEFAULT_PORTS, PORT_SETTINGS } from '../../infra/local/start/defaults';
import { ROOT } from '../../infra/local/start/serverless-config';
import { type Endpoints, fileEmulators } from './emulators';
import { groupEnds, groupProcesses, signalGroup, track } from './process-groups';
import { adminClient, STREAM_IDLE_MS, type TestStack } from './stack';

// A second node of our own beside the test file's stack, as the two-node walkthrough has: in a
// worker thread (its own settings and module graph), on the file's emulators under its own prefix.
export interface OtherNode extends Pick<TestStack, 'admin' | 'send' | 'sign'> {
  adminUrl: string;
  openPaymentsUrl: string;
  connectorUrl: string;
  env: Record<string, string>;
  api(name: string, action: 'stop' | 'start'): Promise<void>;
  trace(id: string): Promise<Trace | undefined>; // what this node recorded of a trace
  stop(): Promise<void>;
}

// The environment as it was before any stack of this process set its own settings in it: the
// other node starts from this, not from this file's node's settings.
const cleanEnv = { ...process.env };
// Workers do not inherit tsx's loader on Node 20, so the worker registers it before loading.
const workerUrl = new URL('./node-worker.ts', import.meta.url).href;

export async function startOtherNode(settings: Record<string, string>, given?: Endpoints): Promise<OtherNode> {
  const emulators = given ?? (await fileEmulators());
  const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl)}); })`, {
    eval: true,
    env: cleanEnv,
    workerData: {
      emulators,
      streamIdleMs: STREAM_IDLE_MS,
      operatorsKey: inject('operatorsKey'), // the run's, as the file's stack has (./stack.ts)
      prefix: `n${randomBytes(4).toString('hex')}-`,
      settings: { ADMIN_API_SECRET: 'other-node-secret-0123456789', EXCHANGE_RATES_URL: '', ...settings },
    },
  });
  const [ready] = (await Promise.race([once(worker, 'message'), once(worker, 'error').then(([e]) => Promise.reject(e))])) as [
    { adminUrl: string; openPaymentsUrl: string; connectorUrl: string; env: Record<string, string> },
  ];
  return {
    ...ready,
    ...adminClient(ready.adminUrl, ready.env.ADMIN_API_SECRET),
    api: async (name, action) => {
      worker.postMessage({ api: name, action });
      await once(worker, 'message');
    },
    trace: async (id) => {
      worker.postMessage({ trace: id });
      const [answer] = await once(worker, 'message');
      return answer.trace;
    },
    stop: async () => {
      worker.postMessage('stop');
      await once(worker, 'exit');
    },
  };
}

// Another node as a process of its own (test/harness/node-process.ts), which `crash` kills with SIGKILL
// and `restart` starts again on the same tables, queues, ports and secrets, as a node that
// crashed and came back would be.
export interface NodeProcess extends Omit<OtherNode, 'api' | 'trace'> {
  crash(): Promise<void>;
  restart(): Promise<void>;
}

export async function startNodeProcess(settings: Record<string, string>): Promise<NodeProcess> {
  const ports = { admin: await freePort(), openPayments: await freePort(), authServer: await freePort(), connector: await freePort() };
  const options = {
    emulators: await fileEmulators(),
    streamIdleMs: STREAM_IDLE_MS,
    operatorsKey: inject('operatorsKey'),
    prefix: `p${randomBytes(4).toString('hex')}-`,
    ports,
    settings: {
      ADMIN_API_SECRET: 'other-node-secret-0123456789',
      EXCHANGE_RATES_URL: '',
      STREAM_SECRET: randomBytes(32).toString('base64url'),
      OPEN_PAYMENTS_CLIENT_SECRET: randomBytes(32).toString('base64url'),
      POWERTOOLS_LOG_LEVEL: 'SILENT',
      ...settings,
    },
  };
  let child: ChildProcess;
  const start = async () => {
    child = spawn(process.execPath, ['--import', 'tsx', new URL('./node-process.ts', import.meta.url).pathname, JSON.stringify(options)], {
      env: cleanEnv,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    return new Promise<{ adminUrl: string; openPaymentsUrl: string; connectorUrl: string; env: Record<string, string> }>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((l) => l.startsWith('READY '));
        if (line) resolve(JSON.parse(line.slice('READY '.length)));
      });
      child.once('exit', (code) => reject(new Error(`The node process exited (${code}) before it was ready`)));
    });
  };
  const ready = await start();
  const exited = () => (child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : once(child, 'exit').then(() => undefined));
  return {
    ...ready,
    ...adminClient(ready.adminUrl, ready.env.ADMIN_API_SECRET),
    crash: async () => {
      child.kill('SIGKILL');
      await exited();
    },
    restart: async () => {
      await start();
    },
    stop: async () => {
      child.kill('SIGTERM');
      await exited();
    },
  };
}

// A node as a user runs it: `npm start` (or `npm run start:node-b`, `start:node-c`) as a process of its own.
export const NPM_NODE_SECRET = 'start-test-secret-123456';
const PORTS = [
  'SECRETS_MANAGER_PORT',
  'CONSOLE_PORT',
  'ADMIN_PORT',
  'OPEN_PAYMENTS_PORT',
  'AUTH_SERVER_PORT',
  'CONNECTOR_PORT',
  'DYNAMODB_PORT',
  'SQS_PORT',
  'EVENTBRIDGE_PORT',
  'FSP_PORT',
] as const;
export type Ports = Record<(typeof PORTS)[number], number>;
export const freePorts = async () => Object.fromEntries(await Promise.all(PORTS.map(async (n) => [n, await freePort()]))) as Ports;
// For the docs' screenshots: Node A's own ports where its pages show them (its console and APIs,
// the FSP simulator), as a user's npm start has them; its emulators on free ones.
export async function docsPorts(): Promise<Ports> {
  const shown = ['console', 'admin', 'openPayments', 'fsp', 'connector', 'authServer'] as const;
  return { ...(await freePorts()), ...Object.fromEntries(shown.map((key) => [PORT_SETTINGS[key], DEFAULT_PORTS[key]])) };
}

export type NpmNode = Awaited<ReturnType<typeof startNpmNode>>;

// One node, as `npm run <script>` starts it, on free ports, with its data in a folder of its own.
export async function startNpmNode(
  script: 'start' | 'start:node-b' | 'start:node-c',
  opts: { ports?: Ports; dataDir?: string; args?: string[]; env?: Record<string, string> } = {},
) {
  const ports = opts.ports ?? (await freePorts());
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'start-test-'));
  const env = {
    ...cleanEnv, // not the settings an in-process stack of the test file put in process.env
    ...Object.fromEntries(Object.entries(ports).map(([k, v]) => [k, String(v)])),
    ADMIN_API_SECRET: NPM_NODE_SECRET,
    LOCAL_DATA_DIR: dataDir,
    POWERTOOLS_LOG_LEVEL: '', // as a user's shell has it (the tests' SILENT would hide what npm start prints)
    LOCAL_JIT: 'quick', // a test's node runs for seconds: the JVM's second JIT tier would not pay back
    LOCAL_STREAM_IDLE_MS: String(STREAM_IDLE_MS), // as the file's stack reads an idle stream (./stack.ts)
    ...opts.env,
  };
  const child = spawn('npm', ['run', script, ...(opts.args ? ['--', ...opts.args] : [])], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pgid = track(child);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  // A backstop, not a clock: ready in 3 to 6 s, far longer on a loaded 2-core machine. A start that
  // ended or gave up leaves nothing running: its group is killed, and has ended, before it throws.
  const deadline = Date.now() + 90_000;
  while (!/ready in/.test(output)) {
    if (Date.now() > deadline || child.exitCode !== null) {
      signalGroup(pgid, 'SIGKILL');
      await groupEnds(pgid);
      const why = child.exitCode === null ? 'did not become ready within 90 s' : `exited (${child.exitCode}) before it was ready`;
      throw new Error(`npm run ${script} ${why}:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  // Stopped once the whole group has ended: npm, its Node and DynamoDB Local's JVM (a no-op on an
  // ended one). One that hangs is killed at groupEnds' backstop, and the stop fails. The signal goes
  // to the group, as Ctrl-C's does, or to `npm` alone, as a `kill` of its pid or a supervisor's.
  const stop = async (signal: NodeJS.Signals = 'SIGINT', to: 'group' | 'npm' = 'group') => {
    if (to === 'npm') child.kill(signal);
    else if (groupProcesses(pgid).length > 0) signalGroup(pgid, signal);
    await groupEnds(pgid);
    await exited;
  };
  // The group's processes: [pid, command].
  const group = () =>
    groupProcesses(pgid)
      .map((line) => line.split(' ', 2))
      .map(([pid, command]) => [Number(pid), command] as const);
  // As a crash of Node would: every process of the group but DynamoDB Local's JVM, at once.
  const crash = async () => {
    for (const [pid, comm] of group()) if (comm !== 'java') process.kill(pid, 'SIGKILL');
    await exited;
  };
  // kill -9 of the whole process group, DynamoDB Local's JVM included. DynamoDB Local acknowledges a
  // write a moment before it is in its file (measured: 400 transactions from 8 clients, a kill -9
  // right after the last answer lost that one, 3 runs of 3), where DynamoDB, which the service is
  // written for, has it durably when it answers. So the Node processes are frozen first, and the JVM
  // killed once it has answered a read sent after them (its writes then reached its file: 5 runs of
  // 5), not after a fixed 200 ms, which a loaded machine outran. What fails here is then the local
  // run's own hops, at any instant, not that window of the jar's.
  const kill = async () => {
    for (const [pid, comm] of group()) if (comm !== 'java') process.kill(pid, 'SIGSTOP');
    const jar = new DynamoDBClient({ endpoint: `http://127.0.0.1:${ports.DYNAMODB_PORT}`, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const { TableNames = [] } = await jar.send(new ListTablesCommand({}));
    await Promise.all(TableNames.map((TableName) => jar.send(new ScanCommand({ TableName, Limit: 1 }))));
    jar.destroy();
    signalGroup(pgid, 'SIGKILL');
    await exited;
    await groupEnds(pgid);
  };
  const adminUrl = `http://localhost:${ports.ADMIN_PORT}`;
  return {
    ports,
    dataDir,
    output: () => output,
    stop,
    crash,
    kill,
    ...adminClient(adminUrl, NPM_NODE_SECRET),
    adminUrl,
    console: `http://localhost:${ports.CONSOLE_PORT}`,
    wallets: `http://localhost:${ports.OPEN_PAYMENTS_PORT}`,
    connector: `http://localhost:${ports.CONNECTOR_PORT}/ilp`,
  };
}

// Node A (test.node-a) and Node B (test.node-b) each the other's USD peer, over their connectors,
// with the tokens each sends the other: the two-node walkthrough's peering. `onA`: more fields of
// A's peer (B). Liquidity is the caller's to give.
type PeeredNode = Pick<TestStack, 'admin'> & { connectorUrl: string };
export const A_TO_B = 'node-a-to-node-b-token-0123456789';
export const B_TO_A = 'node-b-to-node-a-token-0123456789';
export async function peerBothWays(
  a: PeeredNode,
  b: PeeredNode,
  onA: Record<string, unknown> = {},
): Promise<{ peerOfA: { id: string }; peerOfB: { id: string } }> {
  const peer = async (node: PeeredNode, body: Record<string, unknown>) => {
    const res = await node.admin('POST', '/peers', { assetCode: 'USD', ...body });
    if (res.status !== 201) throw new Error(`POST /peers -> ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: string };
  };
  const http = (takes: string, sends: string, to: PeeredNode) => ({
    incoming: { authTokens: [takes] },
    outgoing: { authToken: sends, endpoint: to.connectorUrl },
  });
  return {
    peerOfA: await peer(a, { name: 'Node B', staticIlpAddress: 'test.node-b', http: http(B_TO_A, A_TO_B, b), ...onA }),
    peerOfB: await peer(b, { name: 'Node A', staticIlpAddress: 'test.node-a', http: http(A_TO_B, B_TO_A, a) }),
  };
}
