import { randomUUID } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Context } from 'aws-lambda';
import { countAwsCalls } from '../../../lib/platform/aws';
import { runInSpan, Span, type TraceSink } from '../../../lib/platform/tracing';
import { type FunctionDef, ROOT } from '../start/serverless-config';
import { collectingEmf, type EmfSink, type MetricStore } from './metrics';
import { addUsage, noUsage, type StorageUsage, storageObserver } from './usage';

// Runs Lambda handlers in this process, as one warm container per function would: each module is
// loaded once (on first use, or before with preload) and gets a Lambda-shaped context. It counts the AWS calls of every
// invocation, per function (for the bench), and tells listeners which calls an invocation made
// when it ends: the event source mappings then read at once what it wrote or sent, rather than at
// their next poll. Given a metric store, it records what Lambda reports to CloudWatch (AWS/Lambda:
// invocations, errors, duration; a stream mapping adds the iterator age), and takes the EMF lines
// a function prints into the store instead of printing them (./metrics.ts). Given a trace sink, it
// opens each invocation's segment, as Lambda's active tracing does, in the trace its event came
// with (a gateway's request, the one SQS message it hands a function) or in a new one, and the
// function's work is traced in it (lib/platform/tracing.ts). Nothing throttles here.
type Handler = (event: unknown, context: Context) => Promise<unknown>;

export interface FunctionStats {
  invocations: number;
  calls: Record<string, number>; // "DynamoDB.GetItem" -> how many, over all invocations
  usage?: StorageUsage; // with the runtime's `usage`: the storage work of all its invocations
}

// A function's ARN as the local run names it (its context's, and its on-failure records').
export const localFunctionArn = (fn: Pick<FunctionDef, 'name'>) => `arn:aws:lambda:us-east-1:000000000000:function:${fn.name}`;

// One warm container per function, on the thread that calls it: each module loaded once, each
// handler run with a Lambda-shaped context, its AWS calls counted (and, given `usage`, its storage
// work: ./usage.ts).
export type HostedFunction = Pick<FunctionDef, 'name' | 'handler' | 'timeout'>;
export interface Invocation {
  requestId: string;
  calls: Map<string, number>;
  written: Set<string>; // the DynamoDB tables it wrote to
  usage?: StorageUsage;
  segment?: Span;
}
export function functionHost() {
  const loaded = new Map<string, Promise<Handler>>();
  function load(fn: HostedFunction): Promise<Handler> {
    let handler = loaded.get(fn.name);
    if (!handler) {
      const dot = fn.handler.lastIndexOf('.');
      const file = join(ROOT, `${fn.handler.slice(0, dot)}.ts`);
      const exportName = fn.handler.slice(dot + 1);
      handler = import(pathToFileURL(file).href).then((m) => {
        if (typeof m[exportName] !== 'function') throw new Error(`${fn.handler}: no exported function ${exportName}`);
        return m[exportName] as Handler;
      });
      loaded.set(fn.name, handler);
    }
    return handler;
  }
  async function run(fn: HostedFunction, event: unknown, { requestId, calls, written, usage, segment }: Invocation): Promise<unknown> {
    const handler = await load(fn);
    // Its own timeout (serverless.yml), as Lambda's: what Powertools idempotency holds an
    // Idempotency-Key in progress for is the time left (so a key cut off by a crash is free after it).
    const deadline = Date.now() + fn.timeout * 1000;
    const context = {
      functionName: fn.name,
      functionVersion: '$LATEST',
      invokedFunctionArn: localFunctionArn(fn),
      memoryLimitInMB: '1024',
      awsRequestId: requestId,
      logGroupName: `/aws/lambda/${fn.name}`,
      logStreamName: 'local',
      callbackWaitsForEmptyEventLoop: true,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    } as Context;
    return countAwsCalls(calls, () => runInSpan(segment, () => handler(event, context)), usage && storageObserver(usage), written);
  }
  return { load, run, isLoaded: (name: string) => loaded.has(name) };
}
// The calling thread's id, as /proc/<pid>/task/<id> names it (Linux; undefined elsewhere).
export function threadId(): number | undefined {
  try {
    return Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
}

// What the functions' thread (./lambda-thread.ts) hands back for each invocation.
export interface ThreadReply {
  id: number;
  error?: { name: string; message: string; stack?: string };
  result?: unknown;
  calls?: Array<[string, number]>;
  written?: string[];
  usage?: StorageUsage;
  emf?: string[];
}

// The functions on a thread of their own, which ./lambda-thread.ts runs with functionHost: each
// invocation's event is handed over, and its result (or error), AWS calls, storage work and EMF
// lines (into `emf`, as collectingEmf would) handed back. Started at the first call, with this
// thread's environment as it is then (the stack's settings are all in it by then).
function functionThread(emf?: EmfSink) {
  const entry = new URL('./lambda-thread.ts', import.meta.url).href;
  const pending = new Map<number, { ok(reply: ThreadReply): void; fail(e: unknown): void }>();
  const names = new Set<string>();
  let worker: { thread: Worker; id: Promise<number> } | undefined;
  let next = 0;
  const started = () => {
    if (worker) return worker;
    // Workers do not inherit tsx's loader on Node 20, so the thread registers it before loading.
    const thread = new Worker(`import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(entry)}); })`, {
      eval: true,
      env: { ...process.env },
    });
    const id = new Promise<number>((ok) => thread.once('message', (m: { threadId: number }) => ok(m.threadId)));
    thread.on('message', (reply: ThreadReply) => {
      pending.get(reply.id)?.ok(reply);
      pending.delete(reply.id);
    });
    thread.on('error', (e) => {
      for (const p of pending.values()) p.fail(e);
      pending.clear();
    });
    worker = { thread, id };
    return worker;
  };
  const ask = (message: object) =>
    new Promise<ThreadReply>((ok, fail) => {
      const id = next++;
      pending.set(id, { ok, fail });
      started().thread.postMessage({ id, ...message });
    });
  const hosted = (fn: HostedFunction): HostedFunction => ({ name: fn.name, handler: fn.handler, timeout: fn.timeout });
  return {
    isLoaded: (name: string) => names.has(name),
    load: async (fn: HostedFunction) => {
      names.add(fn.name);
      await ask({ fn: hosted(fn), load: true });
    },
    run: async (fn: HostedFunction, event: unknown, { requestId, calls, written, usage }: Invocation) => {
      names.add(fn.name);
      const reply = await ask({ fn: hosted(fn), event, requestId, usage: !!usage });
      for (const [name, n] of reply.calls ?? []) calls.set(name, (calls.get(name) ?? 0) + n);
      for (const table of reply.written ?? []) written.add(table);
      if (usage && reply.usage) addUsage(usage, reply.usage);
      for (const line of reply.emf ?? []) emf?.emf(line);
      if (reply.error) throw Object.assign(new Error(reply.error.message), reply.error);
      return reply.result;
    },
    threadId: () => started().id,
    stop: async () => void (await worker?.thread.terminate()),
  };
}

type Host = Pick<ReturnType<typeof functionHost>, 'run' | 'isLoaded'> & { load(fn: HostedFunction): Promise<unknown>; stop(): Promise<void> };

// `thread`: run the functions on a thread of their own (./lambda-thread.ts), apart from the
// gateways, pollers and emulators of this one, so that their CPU can be read apart (the bench);
// they are then not traced. `usage`: add up each function's storage work too (the bench).
export function lambdaRuntime(opts: { metrics?: MetricStore; traces?: TraceSink; thread?: boolean; usage?: boolean } = {}) {
  const { metrics, usage: withUsage } = opts;
  const traces = opts.thread ? undefined : opts.traces;
  const host: Host = opts.thread ? functionThread(metrics) : { ...functionHost(), stop: async () => undefined };
  const metricKeys = new Map<string, Record<'invocations' | 'errors' | 'duration' | 'iteratorAge', string>>();
  const keysOf = (name: string) => {
    let keys = metricKeys.get(name);
    if (!keys) {
      const key = (metric: string) => metrics!.key('AWS/Lambda', metric, { FunctionName: name });
      keys = { invocations: key('Invocations'), errors: key('Errors'), duration: key('Duration'), iteratorAge: key('IteratorAge') };
      metricKeys.set(name, keys);
    }
    return keys;
  };
  const stats = new Map<string, FunctionStats>();
  const listeners = new Set<(invoked: Invoked) => void>();
  const load = (fn: FunctionDef) => host.load(fn);

  // `traceHeader`: the trace the event came with (X-Amzn-Trace-Id's form), if any.
  async function invoke(fn: FunctionDef, event: unknown, traceHeader?: string): Promise<unknown> {
    const cold = !host.isLoaded(fn.name);
    const requestId = randomUUID();
    const calls = new Map<string, number>();
    const written = new Set<string>();
    const usage = withUsage ? noUsage() : undefined;
    const began = performance.now();
    const startedAt = Date.now();
    const segment = traces && Span.segment(fn.name, traceHeader, traces, { origin: 'AWS::Lambda::Function', aws: { request_id: requestId } });
    segment?.annotate('ColdStart', cold);
    const run = () => host.run(fn, event, { requestId, calls, written, usage, segment });
    let failed = true;
    try {
      const result = await (metrics ? collectingEmf(metrics, run) : run());
      failed = false;
      return result;
    } finally {
      if (metrics) {
        const keys = keysOf(fn.name);
        metrics.record(keys.invocations, 1, startedAt);
        metrics.record(keys.errors, failed ? 1 : 0, startedAt);
        metrics.record(keys.duration, performance.now() - began, startedAt);
      }
      const s = stats.get(fn.name) ?? { invocations: 0, calls: {}, ...(usage && { usage: noUsage() }) };
      s.invocations++;
      for (const [name, n] of calls) s.calls[name] = (s.calls[name] ?? 0) + n;
      if (usage) addUsage(s.usage!, usage);
      stats.set(fn.name, s);
      for (const listener of listeners) listener({ calls, written, startedAt });
    }
  }

  // Loads each function's module in turn, off the request path, as Lambda initializes a container
  // before its first request: here every module shares the one thread, and a first invocation's
  // import (the TypeScript compiled, the AWS SDK and the rest of lib/ evaluated) held that
  // request, and every other one in flight, for 0.5 s on an idle machine, over the p99 alarm's 2 s
  // on a loaded one. A module that fails to load fails its invocations, as before.
  async function preload(fns: FunctionDef[]): Promise<void> {
    for (const fn of fns) {
      await load(fn).catch(() => undefined);
      await new Promise((next) => setImmediate(next)); // a request that came meanwhile goes first
    }
  }

  return {
    invoke,
    load,
    preload,
    // The functions' thread (with `thread`), by its id in /proc/<pid>/task.
    threadId: () => (host as Partial<ReturnType<typeof functionThread>>).threadId?.(),
    stop: () => host.stop(),
    // How far behind its stream a function's mapping was when it handed it a batch (ms).
    iteratorAge: (name: string, ms: number) => metrics?.record(keysOf(name).iteratorAge, ms),
    stats: () => structuredClone(Object.fromEntries(stats)),
    resetStats: () => stats.clear(),
    // At the end of every invocation: the AWS calls it made, the tables it wrote to, and when it started.
    onInvoked(listener: (invoked: Invoked) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
export type LambdaRuntime = ReturnType<typeof lambdaRuntime>;
export interface Invoked {
  calls: ReadonlyMap<string, number>; // "DynamoDB.GetItem" -> how many
  written: ReadonlySet<string>; // the DynamoDB tables it wrote to
  startedAt: number; // epoch ms
}
