import { afterEach, describe, expect, it, vi } from 'vitest';
import { localCloudWatch } from '../../infra/local/emulators/cloudwatch';
import { collectingEmf, MetricStore, MINUTE_MS, minuteOf } from '../../infra/local/emulators/metrics';
import { loadService } from '../../infra/local/start/serverless-config';
import { provisionedRefs } from '../readers/refs';

// The local run's metric store (infra/local/emulators/metrics.ts) and the template's alarms evaluated on it
// (infra/local/emulators/cloudwatch.ts), on samples made here. The runtime, gateways and queues that record
// into it are proven by test/tooling/local-metrics.test.ts.
const NOW = Date.UTC(2026, 10, 24, 12, 30, 30);
const service = loadService('local');

function storeWith(samples: Array<[namespace: string, name: string, dims: Record<string, string>, value: number, at?: number]>) {
  const store = new MetricStore();
  for (const [ns, name, dims, value, at] of samples) store.record(store.key(ns, name, dims), value, at ?? NOW);
  store.flush();
  return store;
}

describe('the metric store', () => {
  it('gives CloudWatch statistics over any minutes, percentiles within 5%', () => {
    const dims = { FunctionName: 'paymentsWorker' };
    const store = storeWith(
      Array.from({ length: 100 }, (_, i) => ['AWS/Lambda', 'Duration', dims, i + 1, NOW - (i % 2) * MINUTE_MS] as const).map((s) => [...s]),
    );
    const key = store.key('AWS/Lambda', 'Duration', dims);
    const window = [minuteOf(NOW) - MINUTE_MS, minuteOf(NOW) + MINUTE_MS] as const;
    expect(store.statistic(key, 'Sum', ...window)).toBe(5050);
    expect(store.statistic(key, 'SampleCount', ...window)).toBe(100);
    expect(store.statistic(key, 'Average', ...window)).toBe(50.5);
    expect(store.statistic(key, 'Maximum', ...window)).toBe(100);
    expect(store.statistic(key, 'Minimum', ...window)).toBe(1);
    expect(Math.abs(store.statistic(key, 'p50', ...window)! - 50)).toBeLessThan(2.5);
    expect(Math.abs(store.statistic(key, 'p99', ...window)! - 99)).toBeLessThan(5);
    // Minute by minute: the odd samples in this minute, the even ones in the one before.
    expect(store.statistic(key, 'SampleCount', minuteOf(NOW), minuteOf(NOW) + MINUTE_MS)).toBe(50);
    expect(store.statistic(key, 'Maximum', minuteOf(NOW), minuteOf(NOW) + MINUTE_MS)).toBe(99);
    expect(store.statistic(key, 'Sum', minuteOf(NOW) + MINUTE_MS, minuteOf(NOW) + 2 * MINUTE_MS)).toBeUndefined();
  });

  it("takes a function's EMF document as CloudWatch does: a series per dimension set, at the document's time", () => {
    const store = new MetricStore();
    const doc = {
      _aws: {
        Timestamp: NOW,
        CloudWatchMetrics: [
          {
            Namespace: 'PaymentService',
            Dimensions: [
              ['service', 'outcome'],
              ['service', 'reason'],
            ],
            Metrics: [{ Name: 'Payments', Unit: 'Count' }],
          },
        ],
      },
      service: 'payment-service',
      outcome: 'failed',
      reason: 'insufficient_liquidity',
      Payments: 1,
    };
    store.emf(`${JSON.stringify(doc)}\n${JSON.stringify({ ...doc, Payments: [1, 1] })}\n`);
    store.emf('{"_aws": not json');
    store.flush();
    const [byOutcome, byReason] = store.find('PaymentService', 'Payments');
    expect(byOutcome.dimensions).toEqual({ service: 'payment-service', outcome: 'failed' });
    expect(byReason.dimensions).toEqual({ service: 'payment-service', reason: 'insufficient_liquidity' });
    const key = store.key('PaymentService', 'Payments', byReason.dimensions);
    expect(store.statistic(key, 'Sum', minuteOf(NOW), minuteOf(NOW) + MINUTE_MS)).toBe(3);
  });

  it('keeps its series whole through JSON (the data folder across restarts), and forgets minutes over a day old', () => {
    const dims = { ApiName: 'payment-service-local-admin', Stage: 'local' };
    const store = storeWith([
      ['AWS/ApiGateway', 'Latency', dims, 12],
      ['AWS/ApiGateway', 'Latency', dims, 400],
      ['AWS/ApiGateway', 'Latency', dims, 7, NOW - 25 * 60 * MINUTE_MS],
    ]);
    const again = MetricStore.fromJSON(JSON.parse(JSON.stringify(store)));
    const key = again.key('AWS/ApiGateway', 'Latency', dims);
    const day = [NOW - 26 * 60 * MINUTE_MS, NOW + MINUTE_MS] as const;
    for (const stat of ['Sum', 'SampleCount', 'Maximum', 'Minimum', 'p50', 'p99'] as const)
      expect(again.statistic(key, stat, ...day)).toBe(store.statistic(key, stat, ...day));
    again.trim(NOW);
    expect(again.statistic(key, 'SampleCount', ...day)).toBe(2);
  });
});

describe('EMF lines printed during an invocation', () => {
  afterEach(() => vi.restoreAllMocks());

  it("go to the invocation's store, and every other line to stdout", () => {
    const printed: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string) => printed.push(chunk) > 0) as typeof process.stdout.write);
    const store = new MetricStore();
    const emf = `${JSON.stringify({ _aws: { Timestamp: NOW, CloudWatchMetrics: [{ Namespace: 'PaymentService', Dimensions: [['service']], Metrics: [{ Name: 'RatePulls' }] }] }, service: 'payment-service', RatePulls: 1 })}\n`;
    collectingEmf(store, () => {
      process.stdout.write(emf);
      process.stdout.write('{"level":"INFO","message":"request"}\n');
    });
    process.stdout.write(emf); // outside an invocation: nobody's, printed
    store.flush();
    expect(printed).toEqual(['{"level":"INFO","message":"request"}\n', emf]);
    expect(store.find('PaymentService', 'RatePulls')).toHaveLength(1);
  });
});

describe("the template's alarms, evaluated locally", () => {
  const alarms = (store: MetricStore) =>
    Object.fromEntries(
      localCloudWatch(service, provisionedRefs(service), store, NOW - 3_600_000) // a run begun an hour before
        .alarms(NOW)
        .map((a) => [a.id, a]),
    );

  const scheduled = ['ratesRefresh', 'paymentIntentsExpire', 'liquidityWithdrawalsExpire', 'paymentsExpire'];
  const heartbeat = (fn: string) => `${fn[0].toUpperCase()}${fn.slice(1)}LambdaFunctionHeartbeatAlarm`;
  // Each scheduled function's invocations this minute: what a running local stack records.
  const running = scheduled.map((fn): [string, string, Record<string, string>, number] => ['AWS/Lambda', 'Invocations', { FunctionName: fn }, 1]);

  it('are every alarm the template deploys, OK without data but the heartbeats, whose missing data breaches', () => {
    const all = Object.values(alarms(new MetricStore()));
    expect(all.length).toBeGreaterThan(75);
    const notOk = all.filter((a) => a.state !== 'OK');
    // Nothing ran: each schedule's heartbeat is in ALARM; no EventBridge metrics are recorded locally.
    expect(notOk.map((a) => [a.id, a.state]).sort()).toEqual(
      [...scheduled.map((fn) => [heartbeat(fn), 'ALARM']), ['WebhookRuleDeliveryFailedAlarm', 'INSUFFICIENT_DATA']].sort(),
    );
    const ran = Object.values(alarms(storeWith(running)));
    expect(ran.filter((a) => a.state === 'ALARM')).toEqual([]);
  });

  it('go to ALARM on a breach within their last period (5 minutes), and back to OK after it', () => {
    const worker = { FunctionName: 'paymentsWorker' };
    const admin = { ApiName: 'payment-service-local-admin', Stage: 'local' };
    const breached = alarms(
      storeWith([
        ['AWS/Lambda', 'Errors', worker, 1, NOW - 4 * MINUTE_MS],
        ['AWS/Lambda', 'IteratorAge', { FunctionName: 'outboxRelay' }, 61_000],
        ...Array.from({ length: 100 }, (): [string, string, Record<string, string>, number] => ['AWS/ApiGateway', 'Latency', admin, 2500]),
        ['AWS/ApiGateway', 'Latency', { ...admin, Stage: 'other' }, 1],
        ...running,
      ]),
    );
    expect(breached.PaymentsWorkerLambdaFunctionErrorsAlarm).toMatchObject({
      state: 'ALARM',
      value: 1,
      threshold: 1,
      metric: 'AWS/Lambda Errors paymentsWorker',
    });
    expect(breached.OutboxRelayLambdaFunctionIteratorAgeAlarm).toMatchObject({ state: 'ALARM', value: 61_000, threshold: 60_000 });
    expect(breached.ApiGatewayRestApiLatencyAlarm).toMatchObject({ state: 'ALARM', value: 2500, threshold: 2000 });
    expect(Object.values(breached).filter((a) => a.state === 'ALARM')).toHaveLength(3);

    const over = alarms(storeWith([['AWS/Lambda', 'Errors', worker, 1, NOW - 6 * MINUTE_MS], ...running]));
    expect(over.PaymentsWorkerLambdaFunctionErrorsAlarm.state).toBe('OK');
  });

  it("sum a group of functions' throttles (metric math), as CloudWatch does: one throttle of any of them breaches", () => {
    const all = alarms(storeWith(running));
    const groups = Object.values(all).filter((a) => a.id.startsWith('FunctionThrottles'));
    expect(groups.length).toBeGreaterThan(1);
    expect(groups.every((a) => a.state === 'OK')).toBe(true);
    const worker = groups.find((a) => a.metric.includes('AWS/Lambda Throttles paymentsWorker'))!;
    expect(worker.metric).toMatch(/^SUM of AWS\/Lambda Throttles \w+(, AWS\/Lambda Throttles \w+)+$/);

    const throttled = alarms(
      storeWith([
        ['AWS/Lambda', 'Throttles', { FunctionName: 'paymentsWorker' }, 1],
        ['AWS/Lambda', 'Throttles', { FunctionName: 'paymentsWorker' }, 2, NOW - MINUTE_MS],
        ...running,
      ]),
    );
    expect(throttled[worker.id]).toMatchObject({ state: 'ALARM', value: 3, threshold: 1 });
    expect(
      Object.values(throttled)
        .filter((a) => a.state === 'ALARM')
        .map((a) => a.id),
    ).toEqual([worker.id]);
  });
});
