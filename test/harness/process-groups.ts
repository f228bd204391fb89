import { type ChildProcess, execFileSync } from 'node:child_process';
import { waitFor } from './wait';

// The process groups a test file started: each command spawned `detached`, so that it leads a
// session and group of its own, which holds every process under it (npm -> node -> java) and
// nothing of the test's. A signal to the group reaches them all, and the group's end is theirs.
const started = new Set<number>();

export function track(child: ChildProcess): number {
  started.add(child.pid!);
  return child.pid!;
}

// The group's processes still running, as `pid command` lines (a zombie has ended; its parent
// reaps it). `ps -g` selects by session, which is the group of a detached child.
export function groupProcesses(pgid: number): string[] {
  try {
    return execFileSync('ps', ['-o', 'pid=,stat=,args=', '-g', String(pgid)], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .filter(([pid, stat]) => pid && !stat.startsWith('Z'))
      .map(([pid, , ...args]) => `${pid} ${args.join(' ').slice(0, 160)}`);
  } catch {
    return []; // none (ps exits 1)
  }
}

const killed = (pgid: number) => {
  signalGroup(pgid, 'SIGKILL');
  return waitFor(`process group ${pgid} to end after SIGKILL`, async () => groupProcesses(pgid).length === 0 || undefined);
};

export function signalGroup(pgid: number, signal: NodeJS.Signals) {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ended meanwhile
  }
}

// Waits for the group to end. One still running at the backstop is killed, and the wait fails
// naming what was left: a test never leaves a process behind, and says so when one would have been.
export async function groupEnds(pgid: number, timeoutMs = 120_000) {
  try {
    await waitFor(`process group ${pgid} to end`, async () => groupProcesses(pgid).length === 0 || undefined, timeoutMs);
  } catch {
    const left = groupProcesses(pgid);
    await killed(pgid);
    throw new Error(`Process group ${pgid} was still running after ${timeoutMs / 1000} s (killed now):\n${left.join('\n')}`);
  }
}

// The groups this file started that still run, each killed (so that they cannot spoil the files
// after this one): what a file's afterAll expects to be empty.
export async function leftRunning(): Promise<string[]> {
  const left = [...started].flatMap((pgid) => groupProcesses(pgid));
  await Promise.all([...started].map(killed));
  return left;
}
