import { describe, expect, it } from 'vitest';
import { cadence } from '../../infra/local/emulators/schedules';

// The local run's schedules: serverless.yml's rate(...) and daily cron(...) forms.
describe('a local schedule', () => {
  it('fires a rate every period, from a period after the start', () => {
    expect(cadence('rate(1 minute)')).toEqual({ firstMs: 60_000, everyMs: 60_000 });
    expect(cadence('rate(2 hours)')).toEqual({ firstMs: 7_200_000, everyMs: 7_200_000 });
  });

  it('fires a daily cron at its UTC time: today if it is still to come, else tomorrow', () => {
    const at = (iso: string) => Date.parse(iso);
    expect(cadence('cron(30 0 * * ? *)', at('2026-11-29T00:10:00Z'))).toEqual({ firstMs: 20 * 60_000, everyMs: 86_400_000 });
    expect(cadence('cron(30 0 * * ? *)', at('2026-11-29T19:00:00Z')).firstMs).toBe(at('2026-11-30T00:30:00Z') - at('2026-11-29T19:00:00Z'));
  });

  it('refuses a form the local run cannot keep, naming it', () => {
    expect(() => cadence('cron(0 12 ? * MON-FRI *)')).toThrow('not cron(0 12 ? * MON-FRI *)');
  });
});
