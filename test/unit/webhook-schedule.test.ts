import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { hopDelay, REDELIVER_OVERDUE_SECS, redeliverableFrom, retryDelay } from '../../lib/webhooks/schedule';

const DEFAULT = [5, 30, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];

describe('webhook retry timing', () => {
  it('follows the schedule, then stops', () => {
    expect(retryDelay(DEFAULT, 1)).toBe(5);
    expect(retryDelay(DEFAULT, 2)).toBe(30);
    expect(retryDelay(DEFAULT, 3)).toBe(300);
    expect(retryDelay(DEFAULT, 10)).toBe(86400);
    expect(retryDelay(DEFAULT, 11)).toBeUndefined();
    expect(retryDelay([], 1)).toBeUndefined();
  });

  it('chains waits past the 15-minute SQS limit in hops of at most 900 s', () => {
    const now = 1_000_000;
    let at = now;
    const notBefore = now + 7200 * 1000; // the 2 h retry
    const hops = [];
    while (at < notBefore) {
      const d = hopDelay(notBefore, at);
      hops.push(d);
      at += d * 1000;
    }
    expect(hops).toEqual(Array(8).fill(900));
    expect(hopDelay(now + 1500, now)).toBe(2);
    expect(hopDelay(now - 5000, now)).toBe(0);
  });
});

describe('redelivering a pending event', () => {
  const at = '2026-01-01T00:00:00.000Z';
  const t = Date.parse(at);

  it('is allowed once its next attempt is overdue by the margin', () => {
    const due = '2026-01-01T00:05:00.000Z';
    expect(redeliverableFrom({ attempts: [{ at }], failures: 1, nextAttemptAt: due }, DEFAULT)).toBe(Date.parse(due) + REDELIVER_OVERDUE_SECS * 1000);
    // A record from before the next attempt's time was kept: its last attempt and the retry it scheduled.
    expect(redeliverableFrom({ attempts: [{ at }, { at }], failures: 2 }, DEFAULT)).toBe(t + (30 + REDELIVER_OVERDUE_SECS) * 1000);
    expect(redeliverableFrom({ attempts: [{ at }], failures: 0 }, DEFAULT)).toBe(t + REDELIVER_OVERDUE_SECS * 1000);
  });

  it('waits out every receive of a live attempt on the webhook queue (infra/resources.yml)', () => {
    const resources = parse(readFileSync(new URL('../../infra/resources.yml', import.meta.url), 'utf8')).Resources;
    const queue = resources.WebhookQueue.Properties;
    expect(REDELIVER_OVERDUE_SECS).toBeGreaterThanOrEqual(queue.RedrivePolicy.maxReceiveCount * queue.VisibilityTimeout);
  });
});
