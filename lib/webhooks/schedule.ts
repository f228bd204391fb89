// Pure timing rules of webhook retries.
export const SQS_MAX_DELAY_SECS = 900;

// The next retry after `failures` failed attempts in this run, or undefined when none is left.
export function retryDelay(schedule: number[], failures: number): number | undefined {
  return failures <= schedule.length ? schedule[failures - 1] : undefined;
}

// SQS delays a message by at most 15 minutes: a longer wait is a chain of hops of at most that.
export function hopDelay(notBeforeMs: number, nowMs: number): number {
  return Math.min(SQS_MAX_DELAY_SECS, Math.max(0, Math.ceil((notBeforeMs - nowMs) / 1000)));
}

// A pending event may be redelivered once its next attempt is this late. Its message becomes visible
// when the attempt is due, and each of the webhook queue's 5 receives either records the attempt or
// hides the message for at most the queue's 180 s visibility timeout; the last one's failure records
// the event failed. So 5 × 180 s after it was due, no attempt of it still runs or is still to come,
// and a redelivery cannot race one into a second send (test/unit/webhook-schedule.test.ts checks the
// figure against infra/resources.yml).
export const REDELIVER_OVERDUE_SECS = 900;

// From when (epoch ms) a pending event may be redelivered: its next attempt's time, plus the margin.
// A record written before the next attempt's time was kept counts from its last attempt and the retry
// that attempt scheduled.
export function redeliverableFrom(r: { attempts: Array<{ at: string }>; failures: number; nextAttemptAt?: string }, schedule: number[]): number {
  const due = r.nextAttemptAt
    ? Date.parse(r.nextAttemptAt)
    : Date.parse(r.attempts.at(-1)?.at ?? new Date(0).toISOString()) + (retryDelay(schedule, r.failures) ?? 0) * 1000;
  return due + REDELIVER_OVERDUE_SECS * 1000;
}
