import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The local run's CloudWatch: per-minute series of every metric the service would have on AWS.
// The functions' own metrics arrive as they do on Lambda, as EMF lines on their stdout, which the
// runtime takes instead of printing them; the runtime, the gateways and a queue sampler add the
// platform's (AWS/Lambda, AWS/ApiGateway, AWS/SQS). Recording a sample only appends it to a list:
// a timer folds the list into the series every second, off the request path. Each minute keeps
// the count, sum, minimum, maximum and a log-scale histogram (buckets about 4% wide) of its
// samples, so that minutes merge into any period and percentiles, as CloudWatch's statistics do.
// With a data folder, the series are kept in metrics.json across restarts (24 hours of them).
export type Dimensions = Record<string, string>;
export type Statistic = 'Sum' | 'Maximum' | 'Minimum' | 'Average' | 'SampleCount' | `p${number}`;

export const MINUTE_MS = 60_000;
const RETENTION_MINUTES = 24 * 60;
const BINS_PER_DOUBLING = 16;
const ZERO_BIN = -1e6; // a sample of 0 (or less), as log2 has no bin for it
const FLUSH_MS = 1000;
// A save serializes the whole store (about 100 ms for a day of series), on the loop that runs the
// functions: every ten minutes and at the stop, so a crash loses at most ten minutes of series.
const SAVE_MS = 10 * MINUTE_MS;
const FILE = 'metrics.json';

interface Minute {
  count: number;
  sum: number;
  min: number;
  max: number;
  bins: Map<number, number>;
}

// A minute as metrics.json keeps it.
type SavedMinute = [t: number, count: number, sum: number, min: number, max: number, bins: Array<[bin: number, count: number]>];
interface Saved {
  version: 1;
  series: Array<{ namespace: string; name: string; dimensions: Dimensions; minutes: SavedMinute[] }>;
}

export interface Series {
  namespace: string;
  name: string;
  dimensions: Dimensions;
  minutes: Map<number, Minute>;
}

const bin = (v: number) => (v > 0 ? Math.round(Math.log2(v) * BINS_PER_DOUBLING) : ZERO_BIN);
const binValue = (b: number) => (b === ZERO_BIN ? 0 : 2 ** (b / BINS_PER_DOUBLING));
export const minuteOf = (ms: number) => Math.floor(ms / MINUTE_MS) * MINUTE_MS;

export const seriesKey = (namespace: string, name: string, dimensions: Dimensions) =>
  `${namespace}\n${name}\n${Object.keys(dimensions)
    .sort()
    .map((k) => `${k}=${dimensions[k]}`)
    .join('\n')}`;

interface Emf {
  _aws?: { Timestamp?: number; CloudWatchMetrics?: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string }> }> };
  [key: string]: unknown;
}

export class MetricStore {
  readonly series = new Map<string, Series>();
  private pending: Array<[key: string, value: number, at: number]> = [];
  private pendingEmf: string[] = [];
  private defined = new Map<string, Omit<Series, 'minutes'>>();
  dirty = false;

  // A metric's key, to record it by; made once per metric by its caller, not per sample.
  key(namespace: string, name: string, dimensions: Dimensions): string {
    const key = seriesKey(namespace, name, dimensions);
    if (!this.defined.has(key)) this.defined.set(key, { namespace, name, dimensions });
    return key;
  }

  record(key: string, value: number, at = Date.now()): void {
    this.pending.push([key, value, at]);
  }

  // One EMF document as a function printed it.
  emf(line: string): void {
    this.pendingEmf.push(line);
  }

  // Folds what was recorded into the series.
  flush(): void {
    const emf = this.pendingEmf;
    this.pendingEmf = [];
    for (const text of emf) for (const line of text.split('\n')) if (line) this.addEmf(line);
    const samples = this.pending;
    this.pending = [];
    for (const [key, value, at] of samples) this.add(key, value, at);
  }

  private addEmf(line: string): void {
    let doc: Emf;
    try {
      doc = JSON.parse(line);
    } catch {
      return; // not a document: nothing CloudWatch would extract either
    }
    const at = doc._aws?.Timestamp ?? Date.now();
    for (const directive of doc._aws?.CloudWatchMetrics ?? []) {
      for (const set of directive.Dimensions) {
        const dimensions = Object.fromEntries(set.map((d) => [d, String(doc[d])]));
        for (const { Name } of directive.Metrics) {
          const key = this.key(directive.Namespace, Name, dimensions);
          const value = doc[Name];
          for (const v of Array.isArray(value) ? value : [value]) if (typeof v === 'number') this.add(key, v, at);
        }
      }
    }
  }

  private add(key: string, value: number, at: number): void {
    let series = this.series.get(key);
    if (!series) {
      series = { ...this.defined.get(key)!, minutes: new Map() };
      this.series.set(key, series);
    }
    const t = minuteOf(at);
    let m = series.minutes.get(t);
    if (!m) {
      m = { count: 0, sum: 0, min: value, max: value, bins: new Map() };
      series.minutes.set(t, m);
    }
    m.count++;
    m.sum += value;
    m.min = Math.min(m.min, value);
    m.max = Math.max(m.max, value);
    const b = bin(value);
    m.bins.set(b, (m.bins.get(b) ?? 0) + 1);
    this.dirty = true;
  }

  // A statistic over the minutes from `from` (inclusive) to `to` (exclusive); undefined without data.
  statistic(key: string, stat: Statistic, from: number, to: number): number | undefined {
    const series = this.series.get(key);
    if (!series) return undefined;
    const minutes: Minute[] = [];
    for (let t = minuteOf(from); t < to; t += MINUTE_MS) {
      const m = t >= from ? series.minutes.get(t) : undefined;
      if (m) minutes.push(m);
    }
    return statisticOf(minutes, stat);
  }

  // Series whose metric is `name` in `namespace`, at any dimensions (CloudWatch's SEARCH).
  find(namespace: string, name: string): Series[] {
    return [...this.series.values()].filter((s) => s.namespace === namespace && s.name === name);
  }

  // Forgets minutes older than the retention.
  trim(now = Date.now()): void {
    const oldest = minuteOf(now) - RETENTION_MINUTES * MINUTE_MS;
    for (const s of this.series.values()) for (const t of s.minutes.keys()) if (t < oldest) s.minutes.delete(t);
  }

  toJSON(): Saved {
    return {
      version: 1,
      series: [...this.series.values()].map((s) => ({
        namespace: s.namespace,
        name: s.name,
        dimensions: s.dimensions,
        minutes: [...s.minutes].map(([t, m]): SavedMinute => [t, m.count, m.sum, m.min, m.max, [...m.bins]]),
      })),
    };
  }

  static fromJSON(json: Saved): MetricStore {
    const store = new MetricStore();
    for (const s of json.series) {
      const key = store.key(s.namespace, s.name, s.dimensions);
      const minutes = new Map(s.minutes.map(([t, count, sum, min, max, bins]) => [t, { count, sum, min, max, bins: new Map(bins) }] as [number, Minute]));
      store.series.set(key, { namespace: s.namespace, name: s.name, dimensions: s.dimensions, minutes });
    }
    return store;
  }
}

function statisticOf(minutes: Minute[], stat: Statistic): number | undefined {
  if (!minutes.length) return undefined;
  const count = minutes.reduce((n, m) => n + m.count, 0);
  const sum = minutes.reduce((n, m) => n + m.sum, 0);
  switch (stat) {
    case 'Sum':
      return sum;
    case 'SampleCount':
      return count;
    case 'Average':
      return sum / count;
    case 'Maximum':
      return Math.max(...minutes.map((m) => m.max));
    case 'Minimum':
      return Math.min(...minutes.map((m) => m.min));
  }
  const p = Number(stat.slice(1));
  const bins = new Map<number, number>();
  for (const m of minutes) for (const [b, n] of m.bins) bins.set(b, (bins.get(b) ?? 0) + n);
  const rank = Math.max(1, Math.ceil((p / 100) * count));
  let seen = 0;
  for (const b of [...bins.keys()].sort((x, y) => x - y)) {
    seen += bins.get(b)!;
    if (seen >= rank) {
      const min = Math.min(...minutes.map((m) => m.min));
      const max = Math.max(...minutes.map((m) => m.max));
      return Math.min(max, Math.max(min, binValue(b)));
    }
  }
  return undefined;
}

// Where an invocation's EMF lines go: the store of the runtime that runs it. Lambda hands a
// function's stdout to CloudWatch Logs, which takes the EMF documents out of it; here the runtime
// runs functions in its own process, so their stdout is this process's: a line that starts as an
// EMF document and was written during an invocation goes to that runtime's store, and anything
// else is printed as before.
export type EmfSink = Pick<MetricStore, 'emf'>;
const invocationStore = new AsyncLocalStorage<EmfSink>();
let stdoutHooked = false;

export function collectingEmf<T>(store: EmfSink, fn: () => T): T {
  if (!stdoutHooked) {
    stdoutHooked = true;
    const write = process.stdout.write;
    process.stdout.write = function (this: typeof process.stdout, chunk: unknown, ...rest: unknown[]) {
      const into = typeof chunk === 'string' && chunk.startsWith('{"_aws"') ? invocationStore.getStore() : undefined;
      if (!into) return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
      into.emf(chunk as string);
      return true;
    } as typeof process.stdout.write;
  }
  return invocationStore.run(store, fn);
}

interface Collector {
  store: MetricStore;
  // Runs `fn` now and every `ms` (the queue sampler), never two runs at once; gives a function that
  // takes a sample at once (when the last one ended), for a test.
  sample(fn: () => Promise<void>, ms?: number): () => Promise<void>;
  stop(): Promise<void>;
}

// The series kept in `file`; a file this version cannot read (cut short, or of another version)
// gets a one-line warning, and the node starts with no series (the next save replaces the file)
// rather than not at all.
function loaded(file: string): MetricStore | undefined {
  try {
    const saved = JSON.parse(readFileSync(file, 'utf8')) as Saved;
    if (saved.version !== 1) throw new Error(`version ${saved.version}`);
    return MetricStore.fromJSON(saved);
  } catch (e) {
    console.warn(`Local metrics: ${file} could not be read (${(e as Error).message}); starting without the kept series`);
    return undefined;
  }
}

// The store's timers: folding samples in every second, sampling, and with a data folder, saving
// the series that changed every SAVE_MS, and at the stop.
export function startCollector(opts: { dataDir?: string }): Collector {
  const file = opts.dataDir && join(opts.dataDir, FILE);
  const store = (file && existsSync(file) && loaded(file)) || new MetricStore();
  const save = () => {
    store.flush();
    if (!file || !store.dirty) return;
    store.trim();
    writeFileSync(`${file}.tmp`, JSON.stringify(store));
    renameSync(`${file}.tmp`, file);
    store.dirty = false;
  };
  const timers = [setInterval(() => store.flush(), FLUSH_MS), setInterval(save, SAVE_MS)];
  let sampling: Promise<void> | undefined;
  const every = (fn: () => Promise<void>) => () => {
    sampling ??= fn()
      .catch(() => undefined) // a sample missed while the emulators stop or restart
      .finally(() => {
        sampling = undefined;
      });
  };
  for (const t of timers) t.unref();
  return {
    store,
    sample: (fn, ms = 15_000) => {
      const run = every(fn);
      run();
      const timer = setInterval(run, ms);
      timer.unref();
      timers.push(timer);
      return async () => {
        await sampling;
        run();
        await sampling;
      };
    },
    stop: async () => {
      for (const t of timers) clearInterval(t);
      await sampling;
      save();
    },
  };
}
