import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';

// Latency and throughput of an async operation, run `count` times by `concurrency` clients.
export interface Result {
  name: string;
  count: number;
  concurrency: number;
  p50: number;
  p95: number;
  p99: number;
  perSecond: number;
  calls?: Record<string, number>; // AWS calls per operation, by "Service.Operation"
  load?: number; // the machine's load average (1 minute) as the row began
  cpuMs?: number; // the machine's CPU time per operation while the row ran (Linux only)
  cpu?: Record<string, number>; // CPU ms per operation of each process (or thread) of the stack measured
  app?: string[]; // which of those are the application tier
  appIdle?: number; // of the application tier's, what it spends idle (./measure.ts idleCpu) in the row's time
  usage?: Record<string, number>; // storage work and messages per operation (./index.ts)
  usd?: Record<string, number>; // the modelled AWS bill per million operations (./cost.ts)
}

// The application tier's CPU ms per operation.
export const appCpu = (r: Result) => (r.cpu && r.app ? r.app.reduce((sum, name) => sum + (r.cpu![name] ?? 0), 0) : undefined);

// The CPU time the machine has spent busy (user, system, interrupts; not idle, waiting on I/O or
// stolen by the host), from /proc/stat's ticks of 10 ms: the cost of a row, whichever process of the
// stack spends it, and far steadier than its rate on a shared machine. Undefined where there is no /proc.
function busyMs(): number | undefined {
  try {
    const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    return (user + nice + system + irq + softirq) * 10;
  } catch {
    return undefined;
  }
}

// CPU ms per second of each process while nothing is asked of it (timers; pollers, which a stack that
// polls its database runs whatever it serves): a loaded machine, which runs a row longer, adds more of
// it to each operation.
export async function idleCpu(sample: () => Record<string, number>, ms = 5000): Promise<Record<string, number>> {
  const before = sample();
  await new Promise((r) => setTimeout(r, ms));
  const after = sample();
  return Object.fromEntries(Object.keys(after).map((k) => [k, ((after[k] - before[k]) * 1000) / ms]));
}

// A row's CPU per operation, by process, from two samples `windowMs` apart; and what the application
// tier spends idle in that time, per operation.
export function cpuPerOperation(
  before: Record<string, number>,
  after: Record<string, number>,
  count: number,
  app: string[],
  idle: Record<string, number>,
  windowMs: number,
) {
  const cpu = Object.fromEntries(Object.keys(after).map((k) => [k, (after[k] - before[k]) / count]));
  const appIdle = (app.reduce((sum, k) => sum + (idle[k] ?? 0), 0) * (windowMs / 1000)) / count;
  return { cpu, app, appIdle };
}

// Waits until `busy` (a count or a CPU time) stops moving for `quietMs`, at most `maxMs`: what a row
// set going (webhooks, a worker's last payments) is counted in that row, and nothing of the last.
export async function settle(busy: () => Promise<number> | number, quietMs = 300, maxMs = 10_000): Promise<void> {
  const deadline = performance.now() + maxMs;
  let last = await busy();
  while (performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, quietMs));
    const now = await busy();
    if (now === last) return;
    last = now;
  }
}

export const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

export async function measure(name: string, count: number, concurrency: number, op: (i: number) => Promise<void>): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  const load = loadavg()[0];
  const busy = busyMs();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (let i = next++; i < count; i = next++) {
        const t = performance.now();
        await op(i);
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const spent = busy === undefined ? undefined : busyMs()! - busy;
  latencies.sort((a, b) => a - b);
  return {
    name,
    count,
    concurrency,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    perSecond: count / seconds,
    load,
    cpuMs: spent === undefined ? undefined : spent / count,
  };
}

const total = (calls: Record<string, number> = {}) => Object.values(calls).reduce((a, b) => a + b, 0);
const short = (calls: Record<string, number> = {}) =>
  Object.entries(calls)
    .filter(([, n]) => n >= 0.005)
    .sort((a, b) => b[1] - a[1])
    .map(([op, n]) => `${op.replace('DynamoDB.', '')} ${Number(n.toFixed(2))}`)
    .join(', ');

export function print(results: Result[]) {
  const rows = results.map((r) => [
    r.name,
    String(r.concurrency),
    String(r.count),
    r.p50.toFixed(2),
    r.p95.toFixed(2),
    r.p99.toFixed(2),
    r.perSecond.toFixed(0),
    r.load === undefined ? '' : r.load.toFixed(2),
    r.cpuMs === undefined ? '' : r.cpuMs.toFixed(1),
    r.calls ? total(r.calls).toFixed(2) : '',
    short(r.calls),
  ]);
  const head = ['operation', 'clients', 'n', 'p50 ms', 'p95 ms', 'p99 ms', 'ops/s', 'load', 'CPU ms', 'AWS calls', 'of which'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r).trimEnd());
  const measured = results.filter((r) => r.cpu);
  if (measured.length) {
    console.log('\nCPU ms per operation, by process (from /proc; the application tier marked *):\n');
    table(
      measured,
      [...new Set(measured.flatMap((r) => Object.keys(r.cpu!)))],
      (r, k) => (r.cpu![k] === undefined ? '' : r.cpu![k].toFixed(2)),
      (r) => [appCpu(r)!.toFixed(2), r.appIdle === undefined ? '' : (appCpu(r)! - r.appIdle).toFixed(2)],
      ['app tier', 'less idle'],
      (k, r) => (r.app?.includes(k) ? `${k}*` : k),
    );
  }
  const used = results.filter((r) => r.usage);
  if (used.length) {
    console.log('\nStorage work and messages per operation (every function, until the node was idle again), and the modelled AWS bill:\n');
    table(
      used,
      Object.keys(used[0].usage!),
      (r, k) => Number(r.usage![k].toFixed(2)).toString(),
      (r) => (r.usd ? [r.usd.total.toFixed(2)] : ['']),
      ['USD per million'],
    );
  }
}

// A table of rows (operation, clients) by `keys`, with more columns after them.
function table(
  results: Result[],
  keys: string[],
  cell: (r: Result, key: string) => string,
  more: (r: Result) => string[],
  moreHead: string[],
  headOf: (key: string, r: Result) => string = (k) => k,
) {
  const head = ['operation', 'clients', ...keys.map((k) => (results.some((r) => headOf(k, r) !== k) ? `${k}*` : k)), ...moreHead];
  const rows = results.map((r) => [r.name, String(r.concurrency), ...keys.map((k) => cell(r, k)), ...more(r)]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const cells of [head, ...rows])
    console.log(
      cells
        .map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i])))
        .join('  ')
        .trimEnd(),
    );
}

// The ends of what many clients await, seen by one reader for all: every `everyMs` it asks `read` for
// the ends among the ids still awaited (in one request) and hands each on. So both sides of a
// comparison are timed to when a reader saw the end, with the same lag, and reading costs one request
// per `everyMs` however many clients wait. Answers the wait for one id's end.
export function endWatcher<End>(read: (ids: string[]) => Promise<Array<[string, End]>>, everyMs = 5): (id: string) => Promise<End> {
  const awaited = new Map<string, (end: End) => void>();
  let reading = false;
  const readEnds = async () => {
    while (awaited.size) {
      for (const [id, end] of await read([...awaited.keys()])) {
        awaited.get(id)?.(end);
        awaited.delete(id);
      }
      await new Promise((r) => setTimeout(r, everyMs));
    }
    reading = false;
  };
  return (id) =>
    new Promise<End>((ok) => {
      awaited.set(id, ok);
      if (!reading) {
        reading = true;
        void readEnds();
      }
    });
}
