import { Duration } from 'luxon';
import { describe, expect, it } from 'vitest';
import { currentPeriod, parseRepeatingInterval, type RepeatingInterval } from '../../lib/open-payments/interval';

// An outgoing-payment grant's interval, read as Rafiki reads it (lib/open-payments/interval.ts).
const at = (iso: string) => new Date(iso);
const periodOf = (text: string, when: string) => {
  const spec = parseRepeatingInterval(text);
  if (!spec) throw new Error(`${text} names no repeating interval`);
  const p = currentPeriod(spec, at(when));
  return p && [p.start.toISOString(), p.end.toISOString()];
};

describe('a repeating interval', () => {
  it('counts R<n> as the first interval and n more, forwards from a start', () => {
    const monthly = 'R2/2026-07-01T00:00:00Z/P1M';
    expect(periodOf(monthly, '2026-07-15T00:00:00Z')).toEqual(['2026-07-01T00:00:00.000Z', '2026-08-01T00:00:00.000Z']);
    expect(periodOf(monthly, '2026-08-01T00:00:00Z')).toEqual(['2026-08-01T00:00:00.000Z', '2026-09-01T00:00:00.000Z']); // an end belongs to the next
    expect(periodOf(monthly, '2026-09-30T23:59:59Z')).toEqual(['2026-09-01T00:00:00.000Z', '2026-10-01T00:00:00.000Z']);
    expect(periodOf(monthly, '2026-10-01T00:00:00Z')).toBeUndefined(); // after the last
    expect(periodOf(monthly, '2026-06-30T23:59:59Z')).toBeUndefined(); // before the first
  });

  it('repeats for ever with R or R-1, and only the first interval with R0', () => {
    expect(periodOf('R/2026-01-01T00:00:00Z/P1D', '2031-03-04T05:06:07Z')).toEqual(['2031-03-04T00:00:00.000Z', '2031-03-05T00:00:00.000Z']);
    expect(periodOf('R-1/2026-01-01T00:00:00Z/P1Y', '2029-06-01T00:00:00Z')).toEqual(['2029-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z']);
    expect(periodOf('R0/2026-01-01T00:00:00Z/P1D', '2026-01-01T12:00:00Z')).toEqual(['2026-01-01T00:00:00.000Z', '2026-01-02T00:00:00.000Z']);
    expect(periodOf('R0/2026-01-01T00:00:00Z/P1D', '2026-01-02T00:00:00Z')).toBeUndefined();
  });

  it('chains calendar steps: a month on from Jan 31 is Feb 28, and then Mar 28', () => {
    const text = 'R/2026-01-31T00:00:00Z/P1M';
    expect(periodOf(text, '2026-02-15T00:00:00Z')).toEqual(['2026-01-31T00:00:00.000Z', '2026-02-28T00:00:00.000Z']);
    expect(periodOf(text, '2026-03-01T00:00:00Z')).toEqual(['2026-02-28T00:00:00.000Z', '2026-03-28T00:00:00.000Z']);
    expect(periodOf(text, '2026-03-30T00:00:00Z')).toEqual(['2026-03-28T00:00:00.000Z', '2026-04-28T00:00:00.000Z']);
  });

  it('counts backwards from an end when the duration comes first', () => {
    const text = 'R1/P1D/2026-05-10T00:00:00Z';
    expect(periodOf(text, '2026-05-09T06:00:00Z')).toEqual(['2026-05-09T00:00:00.000Z', '2026-05-10T00:00:00.000Z']);
    expect(periodOf(text, '2026-05-08T00:00:00Z')).toEqual(['2026-05-08T00:00:00.000Z', '2026-05-09T00:00:00.000Z']);
    expect(periodOf(text, '2026-05-07T23:59:59Z')).toBeUndefined(); // before the last repetition
    expect(periodOf(text, '2026-05-10T00:00:00Z')).toBeUndefined(); // at the end: after
    expect(periodOf('R/P1M/2026-05-01T00:00:00Z', '2026-02-10T00:00:00Z')).toEqual(['2026-02-01T00:00:00.000Z', '2026-03-01T00:00:00.000Z']);
  });

  it('steps by the length of the first interval when two dates give it', () => {
    expect(periodOf('R/2026-01-01T00:00:00Z/2026-01-01T06:00:00Z', '2026-01-02T13:00:00Z')).toEqual(['2026-01-02T12:00:00.000Z', '2026-01-02T18:00:00.000Z']);
  });

  it('reads an offset in the dates as the instant it names', () => {
    expect(periodOf('R/2026-01-01T00:00:00+02:00/P1D', '2026-01-01T21:59:59Z')).toEqual(['2025-12-31T22:00:00.000Z', '2026-01-01T22:00:00.000Z']);
  });

  it('names nothing when it is not one', () => {
    for (const text of [
      '',
      'P1M',
      '2026-01-01T00:00:00Z/P1M',
      'X/2026-01-01T00:00:00Z/P1M',
      'R1.5/2026-01-01T00:00:00Z/P1M',
      'R/2026-01-01T00:00:00Z/P0D',
      'R/not-a-date/P1D',
      'R/2026-01-01T00:00:00Z/P1M/x',
      'R/P1D/P1D',
    ])
      expect(parseRepeatingInterval(text), text).toBeUndefined();
  });

  it('finds, for a step of fixed length, the interval that walking one at a time finds', () => {
    const walk = (spec: RepeatingInterval, when: Date) => {
      // The walk, for a fixed step: interval after interval from the first.
      const ms = spec.step.toMillis();
      let [start, end] = [spec.base.start.toMillis(), spec.base.end.toMillis()];
      for (let i = 0; i <= Math.min(spec.repetitions, 100_000); i++) {
        if (start <= when.getTime() && when.getTime() < end) return [start, end];
        [start, end] = spec.backwards ? [start - ms, start] : [end, end + ms];
      }
      return undefined;
    };
    for (const text of ['R/2026-01-01T00:00:00Z/PT7M13S', 'R40/2026-01-01T00:00:00Z/P1W', 'R/PT1H/2026-03-01T00:00:00Z', 'R12/P2DT3H/2026-03-01T00:00:00Z']) {
      const spec = parseRepeatingInterval(text)!;
      for (let i = 0; i < 200; i++) {
        const when = new Date(Date.parse('2025-12-01T00:00:00Z') + Math.floor(Math.random() * 120 * 86_400_000));
        const found = currentPeriod(spec, when);
        expect(found && [found.start.getTime(), found.end.getTime()], `${text} at ${when.toISOString()}`).toEqual(walk(spec, when));
      }
    }
    expect(Duration.fromISO('P1W').toMillis()).toBe(7 * 86_400_000);
  });
});
