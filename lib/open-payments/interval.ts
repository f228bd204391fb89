import { DateTime, Duration, Interval } from 'luxon';

// An outgoing-payment grant's `interval` limit: an ISO 8601 repeating interval ("R<n>/<start>/<duration>",
// "R<n>/<duration>/<end>" or "R<n>/<start>/<end>"; "R" or "R-1": for ever). Its limits apply to
// each interval on their own. We read it as Rafiki does, so that an app built against Rafiki sees
// the same boundaries:
// - R<n> is the first interval and n repetitions after it (R2: three intervals);
// - intervals are half-open, [start, end), in UTC;
// - a duration first counts backwards from the end, otherwise forwards from the start;
// - each interval follows the one before, calendar-aware: from Jan 31 one month on is Feb 28, and
//   the next is Mar 28, not Mar 31.
export interface RepeatingInterval {
  base: Interval<true>;
  repetitions: number; // Infinity for ever
  step: Duration<true>;
  backwards: boolean;
}

export interface Period {
  start: Date;
  end: Date;
}

// A calendar step (months, years) is walked one interval at a time; so many reach well past any
// grant's lifetime (a monthly interval for 800 years).
const MAX_WALK = 10_000;

// The repeating interval `text` names, or undefined when it names none (refused when a grant asks it).
export function parseRepeatingInterval(text: string): RepeatingInterval | undefined {
  const parts = text.split('/');
  if (parts.length !== 3) return undefined;
  const reps = /^R(-1|\d*)$/.exec(parts[0]);
  if (!reps) return undefined;
  const repetitions = reps[1] === '' || reps[1] === '-1' ? Number.POSITIVE_INFINITY : Number(reps[1]);
  const base = Interval.fromISO(`${parts[1]}/${parts[2]}`, { setZone: true });
  if (!base.isValid) return undefined;
  const backwards = parts[1].startsWith('P');
  const named = backwards ? parts[1] : parts[2].startsWith('P') ? parts[2] : undefined;
  const step = named ? Duration.fromISO(named) : base.toDuration();
  if (!step.isValid || step.toMillis() <= 0) return undefined;
  return { base: base as Interval<true>, repetitions, step: step as Duration<true>, backwards };
}

const period = (i: Interval<true>): Period => ({ start: i.start.toJSDate(), end: i.end.toJSDate() });

// The interval of `spec` that holds `at`, or undefined when none does (before the first, after
// the last).
export function currentPeriod(spec: RepeatingInterval, at: Date): Period | undefined {
  const when = DateTime.fromJSDate(at, { zone: 'utc' });
  const { base, repetitions, step, backwards } = spec;
  if (base.contains(when)) return period(base);
  if (backwards ? when >= base.end : when < base.start) return undefined;
  if (isFixed(step)) return fixedPeriod(spec, at.getTime());
  let current = base;
  for (let i = 1; i <= repetitions && i <= MAX_WALK; i++) {
    current = (backwards ? Interval.before(current.start, step) : Interval.after(current.end, step)) as Interval<true>;
    if (current.contains(when)) return period(current);
  }
  return undefined;
}

// A step with no months or years lasts the same in UTC wherever it falls: the k-th interval is found
// without walking to it (the same one the walk finds).
const isFixed = (d: Duration) => !d.years && !d.quarters && !d.months;

function fixedPeriod({ base, repetitions, step, backwards }: RepeatingInterval, at: number): Period | undefined {
  const ms = step.toMillis();
  if (backwards) {
    const end = base.start.toMillis();
    const k = Math.floor((end - at - 1) / ms); // how many steps before the base's start
    if (k + 1 > repetitions) return undefined;
    return { start: new Date(end - (k + 1) * ms), end: new Date(end - k * ms) };
  }
  const start = base.end.toMillis();
  const k = Math.floor((at - start) / ms);
  if (k + 1 > repetitions) return undefined;
  return { start: new Date(start + k * ms), end: new Date(start + (k + 1) * ms) };
}

// Which period of an outgoing-payment grant `at` falls in, for counting what it spends: its whole
// life ('TOTAL') without an interval, or the interval that holds `at` (named by its start); none
// before the first interval or after the last.
export type GrantPeriod = { key: string; end?: Date };
export function grantPeriodAt(interval: string | undefined, at: Date): GrantPeriod | undefined {
  if (!interval) return { key: 'TOTAL' };
  const spec = parseRepeatingInterval(interval);
  const p = spec && currentPeriod(spec, at);
  return p && { key: p.start.toISOString(), end: p.end };
}
