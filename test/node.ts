import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { inject } from 'vitest';
import { freePort } from '../infra/local/emulators';
import { adminClient, type TestStack } from './stack';

// A second node of our own beside the test file's stack, as the two-node walkthrough has: in a
// worker thread (its own settings and module graph), on the suite's emulators under its own prefix.
export interface OtherNode extends Pick<TestStack, 'admin' | 'send' | 'sign' | 'freshSign'> {
  adminUrl: string;
  openPaymentsUrl: string;
  connectorUrl: string;
  env: Record<string, string>;
  api(name: string, action: 'stop' | 'start'): Promise<void>;
  stop(): Promise<void>;
}

// The environment as it was before any stack of this process set its own settings in it: the
// other node starts from this, not from this file's node's settings.
const cleanEnv = { ...process.env };
// Workers do not inherit tsx's loader on Node 20, so the worker registers it before loading.
const workerUrl = new URL('./node-worker.ts', import.meta.url).href;

export async function startOtherNode(settings: Record<string, string>): Promise<OtherNode> {
  const worker = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(workerUrl)}); })`, {
    eval: true,
    env: cleanEnv,
    workerData: {
      emulators: inject('emulators'),
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
    stop: async () => {
      worker.postMessage('stop');
      await once(worker, 'exit');
    },
  };
}

// Another node as a process of its own (test/node-process.ts), which `crash` kills with SIGKILL
// and `restart` starts again on the same tables, queues, ports and secrets, as a node that
// crashed and came back would be.
export interface NodeProcess extends Omit<OtherNode, 'api'> {
  crash(): Promise<void>;
  restart(): Promise<void>;
}

export async function startNodeProcess(settings: Record<string, string>): Promise<NodeProcess> {
  const ports = { admin: await freePort(), openPayments: await freePort(), authServer: await freePort(), connector: await freePort() };
  const options = {
    emulators: inject('emulators'),
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
