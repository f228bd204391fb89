import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { inject } from 'vitest';
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
