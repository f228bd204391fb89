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
