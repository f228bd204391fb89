import { describe, expect, it } from 'vitest';
import { hopDelay, retryDelay } from '../../lib/webhooks/schedule';

const DEFAULT = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];

describe('webhook retry timing', () => {
  it('follows the schedule, then stops', () => {
    expect(retryDelay(DEFAULT, 1)).toBe(5);
    expect(retryDelay(DEFAULT, 2)).toBe(300);
    expect(retryDelay(DEFAULT, 9)).toBe(86400);
    expect(retryDelay(DEFAULT, 10)).toBeUndefined();
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
