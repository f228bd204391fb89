import { randomUUID } from 'node:crypto';
import type { FunctionDef } from '../start/serverless-config';
import type { LambdaRuntime } from './lambda';

// Fires the functions' `schedule` events locally, as EventBridge Scheduler would on AWS.
const UNIT_MS: Record<string, number> = { minute: 60_000, minutes: 60_000, hour: 3_600_000, hours: 3_600_000, day: 86_400_000, days: 86_400_000 };

export function rateToMs(expression: string): number {
  const m = /^rate\((\d+)\s+(minutes?|hours?|days?)\)$/.exec(expression.trim());
  if (!m) throw new Error(`Only rate(...) schedules run locally, not ${expression}`);
  return Number(m[1]) * UNIT_MS[m[2]];
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

export function startSchedules(functions: FunctionDef[], runtime: LambdaRuntime): () => void {
  const timers: NodeJS.Timeout[] = [];
  for (const fn of functions) {
    for (const e of fn.events) {
      if (!e.schedule) continue;
      const expression = typeof e.schedule === 'string' ? e.schedule : e.schedule.rate;
      let running = false;
      const timer = setInterval(async () => {
        if (running) return; // never overlap a slow run with the next one
        running = true;
        try {
          await runtime.invoke(fn, scheduledEvent(fn));
        } catch (err) {
          console.error(`schedule ${fn.name}:`, err);
        } finally {
          running = false;
        }
      }, rateToMs(expression));
      timer.unref();
      timers.push(timer);
    }
  }
  return () => timers.forEach(clearInterval);
}
