import { randomUUID } from 'node:crypto';
import type { FunctionDef } from '../start/serverless-config';
import type { LambdaRuntime } from './lambda';

// Fires the functions' `schedule` events locally, as EventBridge Scheduler would on AWS.
const UNIT_MS: Record<string, number> = { minute: 60_000, minutes: 60_000, hour: 3_600_000, hours: 3_600_000, day: 86_400_000, days: 86_400_000 };

function rateToMs(expression: string): number | undefined {
  const m = /^rate\((\d+)\s+(minutes?|hours?|days?)\)$/.exec(expression.trim());
  return m ? Number(m[1]) * UNIT_MS[m[2]] : undefined;
}

// When a schedule first fires from `now`, and then how often: rate(...), or a daily
// cron(<minute> <hour> * * ? *) in UTC (the audit trail's digest), the forms serverless.yml declares.
export function cadence(expression: string, now = Date.now()): { firstMs: number; everyMs: number } {
  const every = rateToMs(expression);
  if (every !== undefined) return { firstMs: every, everyMs: every };
  const daily = /^cron\((\d{1,2}) (\d{1,2}) \* \* \? \*\)$/.exec(expression.trim());
  if (!daily) throw new Error(`Only rate(...) and daily cron(M H * * ? *) schedules run locally, not ${expression}`);
  const next = new Date(now);
  next.setUTCHours(Number(daily[2]), Number(daily[1]), 0, 0);
  if (next.getTime() <= now) next.setUTCDate(next.getUTCDate() + 1);
  return { firstMs: next.getTime() - now, everyMs: UNIT_MS.day };
}

export function scheduledEvent(fn: FunctionDef) {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: 'us-east-1',
    resources: [`arn:aws:events:us-east-1:000000000000:rule/${fn.name}`],
    detail: {},
  };
}

// A `schedule` event's expression, written as a string or as `{ rate }`.
export const expressionOf = (schedule: string | { rate: string }) => (typeof schedule === 'string' ? schedule : schedule.rate);

export function startSchedules(functions: FunctionDef[], runtime: LambdaRuntime): () => void {
  const timers: NodeJS.Timeout[] = [];
  for (const fn of functions) {
    for (const e of fn.events) {
      if (!e.schedule) continue;
      const expression = expressionOf(e.schedule);
      let running = false;
      const fire = async () => {
        if (running) return; // never overlap a slow run with the next one
        running = true;
        try {
          await runtime.invoke(fn, scheduledEvent(fn));
        } catch (err) {
          console.error(`schedule ${fn.name}:`, err);
        } finally {
          running = false;
        }
      };
      const { firstMs, everyMs } = cadence(expression);
      const first = setTimeout(() => {
        void fire();
        timers.push(setInterval(fire, everyMs).unref());
      }, firstMs).unref();
      timers.push(first);
    }
  }
  return () => timers.forEach(clearTimeout);
}
