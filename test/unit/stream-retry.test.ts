import { describe, expect, it } from 'vitest';
import { afterFailure, expiredHead } from '../../infra/local/emulators/stream-poller';

// The local stream mapping's decisions after a failed batch, as Lambda makes them with
// maximumRetryAttempts, bisectBatchOnFunctionError and maximumRecordAgeInSeconds.
describe('a failed stream batch', () => {
  const policy = { maxRetries: 2, bisect: true };

  it('is halved while its invocation throws, which uses no retry, then retried, then parked', () => {
    let state = afterFailure(undefined, '100', 8, true, policy);
    expect(state).toEqual({ from: '100', retries: 0, limit: 4 });
    state = afterFailure(state as never, '100', 4, true, policy);
    expect(state).toEqual({ from: '100', retries: 0, limit: 2 });
    state = afterFailure(state as never, '100', 2, true, policy);
    expect(state).toEqual({ from: '100', retries: 0, limit: 1 });
    state = afterFailure(state as never, '100', 1, true, policy);
    expect(state).toEqual({ from: '100', retries: 1, limit: 1 });
    state = afterFailure(state as never, '100', 1, true, policy);
    expect(state).toEqual({ from: '100', retries: 2, limit: 1 });
    expect(afterFailure(state as never, '100', 1, true, policy)).toBe('park');
  });

  it('reported failed in part is retried from that record, not halved; progress starts the count anew', () => {
    const state = afterFailure(undefined, '100', 8, false, policy);
    expect(state).toEqual({ from: '100', retries: 1 });
    expect(afterFailure(state as never, '105', 3, false, policy)).toEqual({ from: '105', retries: 1 });
    expect(afterFailure({ from: '100', retries: 2 }, '100', 8, false, policy)).toBe('park');
  });

  it('is retried until it succeeds when retries are unbounded, and never halved without bisecting', () => {
    expect(afterFailure({ from: '1', retries: 5000 }, '1', 10, true, { maxRetries: -1, bisect: false })).toEqual({ from: '1', retries: 5001 });
    expect(afterFailure(undefined, '1', 10, true, { maxRetries: 0, bisect: false })).toBe('park');
  });

  it('parks the records at its head that are older than the mapping takes', () => {
    expect(expiredHead([100, 150, 200], 60, 200)).toBe(1);
    expect(expiredHead([100, 150], 60, 500)).toBe(2);
    expect(expiredHead([100, 150], 60, 140)).toBe(0);
    expect(expiredHead([100], -1, 1e9)).toBe(0);
  });
});
