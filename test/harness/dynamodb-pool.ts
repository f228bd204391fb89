import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Emulator, freePort, startDynamoDbLocal } from '../../infra/local/emulators/emulators';

// DynamoDB Locals that outlive test files, run by the global setup in vitest's own process (each
// test file runs in a process of its own). A file leases one that no other file holds, and gives it
// back after its tests. Each keeps a database for each access key, and each file has a key of its
// own (./file-key.ts): so a file's tables are apart from every other file's, and the history that
// slows a database down (test/harness/emulators.ts) is its own file's only, however many files the
// JVM served before (measured: the same CPU per write on the 60th database as on the 2nd, where one
// shared database took twice as much by its 16th table of 300 writes). So a JVM lives long, with
// both tiers of the JIT (`full`): measured on one JVM, a quarter less CPU a request once warm, the
// compiling paid back after some 17,000 writes and as many reads, a fraction of a JVM's files.
// It serves FILES_PER_JVM files and is then replaced, which bounds its memory (every file's tables
// stay; 470 MB at most in a whole run); the replacement starts as soon as the last file gives its
// JVM back, while the next file loads.
const FILES_PER_JVM = 32;

interface Pooled {
  started: Promise<Emulator>;
  files: number;
}

export async function startDynamoDbPool(): Promise<{ url: string; stop(): Promise<void> }> {
  const idle: Pooled[] = [];
  const leased = new Map<string, Pooled>();
  const all = new Set<Pooled>();
  const start = (): Pooled => {
    const pooled = { started: freePort().then((port) => startDynamoDbLocal(port, undefined, 'full', 'per-key')), files: 0 };
    all.add(pooled);
    return pooled;
  };
  const stop = async (pooled: Pooled) => {
    all.delete(pooled);
    await (await pooled.started.catch(() => undefined))?.stop();
  };
  const lease = async () => {
    const pooled = idle.shift() ?? start();
    const { endpoint } = await pooled.started;
    leased.set(endpoint, pooled);
    return endpoint;
  };
  const release = (endpoint: string) => {
    const pooled = leased.get(endpoint);
    if (!pooled) return;
    leased.delete(endpoint);
    if (++pooled.files < FILES_PER_JVM) return void idle.push(pooled);
    void stop(pooled);
    idle.push(start());
  };
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://pool');
    const answer = (status: number, body: string) => res.writeHead(status, { 'content-type': 'text/plain' }).end(body);
    if (req.method === 'POST' && url.pathname === '/lease')
      lease().then(
        (endpoint) => answer(200, endpoint),
        (e) => answer(500, String(e?.message ?? e)),
      );
    else if (req.method === 'POST' && url.pathname === '/release') {
      release(url.searchParams.get('endpoint') ?? '');
      answer(204, '');
    } else answer(404, '');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: async () => {
      await new Promise((ok) => server.close(ok));
      await Promise.all([...all].map(stop));
    },
  };
}
