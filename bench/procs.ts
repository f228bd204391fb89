import { readdirSync, readFileSync } from 'node:fs';

// CPU time of named processes and threads, from /proc (Linux): utime + stime of /proc/<pid>/stat, or
// of /proc/<pid>/task/<tid>/stat for one thread, in the kernel's clock ticks of 10 ms. Only the
// processes named are read: another helper's test on the same machine counts in none of them.
export interface ProcStat {
  pid: number;
  ppid: number;
  ms: number; // utime + stime: every thread's, live or ended
  childrenMs: number; // cutime + cstime: the children it has reaped
}
const TICK_MS = 10; // USER_HZ is 100 on Linux

// One line of /proc/<pid>/stat (or a task's): the fields after the command, which may hold spaces
// and parentheses, come after its last ')'.
export function parseStat(line: string): ProcStat {
  const f = line.slice(line.lastIndexOf(')') + 2).split(' ');
  // f[0] is field 3 (state): ppid 4, utime 14, stime 15, cutime 16, cstime 17
  return {
    pid: Number(line.slice(0, line.indexOf(' '))),
    ppid: Number(f[1]),
    ms: (Number(f[11]) + Number(f[12])) * TICK_MS,
    childrenMs: (Number(f[13]) + Number(f[14])) * TICK_MS,
  };
}

// What a process and all its descendants have spent: its own, its live descendants', and what it
// and they have reaped (a Postgres connection's process that ended).
export function treeMs(pid: number, all: ProcStat[]): number {
  const self = all.find((p) => p.pid === pid);
  if (!self) return 0;
  return self.ms + self.childrenMs + all.filter((p) => p.ppid === pid).reduce((sum, child) => sum + treeMs(child.pid, all), 0);
}

// A thread of a process; a process with its descendants; or a process less some of its threads.
export type Target = { pid: number; tid: number } | { tree: number } | { pid: number; except: number[] };

const read = (path: string) => {
  try {
    return parseStat(readFileSync(path, 'utf8'));
  } catch {
    return undefined; // gone
  }
};
function everyProcess(): ProcStat[] {
  const all: ProcStat[] = [];
  for (const name of readdirSync('/proc')) if (/^\d+$/.test(name)) all.push(...[read(`/proc/${name}/stat`)].filter((p) => p !== undefined));
  return all;
}

// The CPU ms each named group of targets has spent so far.
export function sampleCpu(groups: Record<string, Target[]>): Record<string, number> {
  const trees = Object.values(groups).some((ts) => ts.some((t) => 'tree' in t));
  const all = trees ? everyProcess() : [];
  const thread = (pid: number, tid: number) => read(`/proc/${pid}/task/${tid}/stat`)?.ms ?? 0;
  const ms = (t: Target): number => {
    if ('tree' in t) return treeMs(t.tree, all);
    if ('tid' in t) return thread(t.pid, t.tid);
    return (read(`/proc/${t.pid}/stat`)?.ms ?? 0) - t.except.reduce((sum, tid) => sum + thread(t.pid, tid), 0);
  };
  return Object.fromEntries(Object.entries(groups).map(([name, targets]) => [name, targets.reduce((sum, t) => sum + ms(t), 0)]));
}
