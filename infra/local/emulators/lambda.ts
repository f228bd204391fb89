import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { countAwsCalls } from '../../../lib/platform/aws';
import { runInSpan, Span, type TraceSink } from '../../../lib/platform/tracing';
import { type FunctionDef, ROOT } from '../start/serverless-config';
import { collectingEmf, type MetricStore } from './metrics';

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
}

// A function's ARN as the local run names it (its context's, and its on-failure records').
export const localFunctionArn = (fn: FunctionDef) => `arn:aws:lambda:us-east-1:000000000000:function:${fn.name}`;

export function lambdaRuntime(opts: { metrics?: MetricStore; traces?: TraceSink } = {}) {
  const { metrics, traces } = opts;
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
  const loaded = new Map<string, Promise<Handler>>();
  const stats = new Map<string, FunctionStats>();
  const listeners = new Set<(calls: ReadonlyMap<string, number>, startedAt: number) => void>();

  function load(fn: FunctionDef): Promise<Handler> {
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

  // `traceHeader`: the trace the event came with (X-Amzn-Trace-Id's form), if any.
  async function invoke(fn: FunctionDef, event: unknown, traceHeader?: string): Promise<unknown> {
    const cold = !loaded.has(fn.name);
    const handler = await load(fn);
    // Its own timeout (serverless.yml), as Lambda's: what Powertools idempotency holds an
    // Idempotency-Key in progress for is the time left (so a key cut off by a crash is free after it).
    const deadline = Date.now() + fn.timeout * 1000;
    const context = {
      functionName: fn.name,
      functionVersion: '$LATEST',
      invokedFunctionArn: localFunctionArn(fn),
      memoryLimitInMB: '1024',
      awsRequestId: randomUUID(),
      logGroupName: `/aws/lambda/${fn.name}`,
      logStreamName: 'local',
      callbackWaitsForEmptyEventLoop: true,
      getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
      done: () => undefined,
      fail: () => undefined,
      succeed: () => undefined,
    } as Context;
    const calls = new Map<string, number>();
    const began = performance.now();
    const startedAt = Date.now();
    const segment = traces && Span.segment(fn.name, traceHeader, traces, { origin: 'AWS::Lambda::Function', aws: { request_id: context.awsRequestId } });
    segment?.annotate('ColdStart', cold);
    const run = () => countAwsCalls(calls, () => runInSpan(segment, () => handler(event, context)));
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
      const s = stats.get(fn.name) ?? { invocations: 0, calls: {} };
      s.invocations++;
      for (const [name, n] of calls) s.calls[name] = (s.calls[name] ?? 0) + n;
      stats.set(fn.name, s);
      for (const listener of listeners) listener(calls, startedAt);
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
    // How far behind its stream a function's mapping was when it handed it a batch (ms).
    iteratorAge: (name: string, ms: number) => metrics?.record(keysOf(name).iteratorAge, ms),
    stats: () => structuredClone(Object.fromEntries(stats)),
    resetStats: () => stats.clear(),
    // At the end of every invocation: the AWS calls it made, and when it started (epoch ms).
    onInvoked(listener: (calls: ReadonlyMap<string, number>, startedAt: number) => void) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}
export type LambdaRuntime = ReturnType<typeof lambdaRuntime>;
