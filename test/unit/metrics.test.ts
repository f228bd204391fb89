import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// lib/platform/metrics on its own: what withMetrics prints at the end of an invocation, read from stdout
// (Powertools Metrics writes its EMF documents there). The domain's hooks are proven by
// test/integration/metrics.test.ts.
let printed: string[];
beforeEach(() => {
  printed = [];
  vi.resetModules(); // lib/platform/metrics reads its settings when it is loaded
  vi.spyOn(process.stdout, 'write').mockImplementation(((chunk: string) => {
    printed.push(String(chunk));
    return true;
  }) as typeof process.stdout.write);
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

async function load(disabled: string) {
  vi.stubEnv('POWERTOOLS_METRICS_DISABLED', disabled);
  const [metrics, { logger }] = await Promise.all([import('../../lib/platform/metrics'), import('../../lib/platform/log')]);
  return { ...metrics, warn: vi.spyOn(logger, 'warn') };
}

describe('withMetrics', () => {
  it('publishes what an invocation counted when it ends, even when it fails', async () => {
    const { withMetrics, countRatePull } = await load('false');
    const handler = withMetrics(async () => {
      countRatePull(false);
      throw new Error('the FSP is down');
    });
    await expect(handler({}, {})).rejects.toThrow('the FSP is down');
    expect(printed).toHaveLength(1);
    const doc = JSON.parse(printed[0]);
    expect(doc._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'PaymentService',
        Dimensions: [['service']],
        Metrics: [
          { Name: 'RatePulls', Unit: 'Count' },
          { Name: 'RatePullsFailed', Unit: 'Count' },
        ],
      },
    ]);
    expect(doc).toMatchObject({ service: 'payment-service', RatePulls: 1, RatePullsFailed: 1 });
    // Published once: the next invocation starts empty.
    await withMetrics(async () => undefined)({}, {});
    expect(printed).toHaveLength(1);
  });

  it('prints nothing, and warns of nothing, for an invocation that counted nothing', async () => {
    const { withMetrics, warn } = await load('false');
    expect(await withMetrics(async () => 'done')({}, {})).toBe('done');
    expect(printed).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('prints nothing with POWERTOOLS_METRICS_DISABLED=true, and publishes payments by outcome at once otherwise', async () => {
    const quiet = await load('true');
    await quiet.withMetrics(async () => quiet.countPayment('failed', 'insufficient_liquidity'))({}, {});
    expect(printed).toEqual([]);

    vi.resetModules();
    const { countPayment } = await load('false');
    countPayment('failed', 'insufficient_liquidity');
    expect(printed).toHaveLength(1);
    const doc = JSON.parse(printed[0]);
    expect(doc._aws.CloudWatchMetrics[0].Dimensions).toEqual([
      ['service', 'outcome'],
      ['service', 'reason'],
    ]);
    expect(doc).toMatchObject({ outcome: 'failed', reason: 'insufficient_liquidity', Payments: 1 });
  });

  it('publishes each payment with its own dimensions only, one after another', async () => {
    const { countPayment, countPaymentReceived } = await load('false');
    countPayment('failed', 'insufficient_liquidity');
    countPayment('completed');
    countPaymentReceived('local');
    const docs = printed.map((line) => JSON.parse(line));
    expect(docs.map((d) => d._aws.CloudWatchMetrics[0].Dimensions)).toEqual([
      [
        ['service', 'outcome'],
        ['service', 'reason'],
      ],
      [['service', 'outcome']],
      [['service', 'via']],
    ]);
    expect(docs[1]).not.toHaveProperty('reason');
    expect(docs[2]).not.toHaveProperty('outcome');
    expect(docs.map((d) => [d.Payments, d.PaymentsReceived])).toEqual([
      [1, undefined],
      [1, undefined],
      [undefined, 1],
    ]);
  });
});
