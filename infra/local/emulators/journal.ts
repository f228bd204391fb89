import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

// An append-only journal of JSON records, one a line, for an emulator that must keep its state in
// the local run's data folder. `append` writes synchronously, so a record is in the file (the OS's
// page cache) before the caller answers anyone: a kill -9 at any instant loses nothing that was
// acknowledged. (No fsync: that would guard against a power cut, at a disk flush per message, and
// the local run does not promise that.) A torn last line, from a process killed in mid-write, was
// never acknowledged, and is dropped. `compact` replaces the file with a snapshot of the live
// state, written to a temporary file and renamed over the journal: a crash leaves one or the other.
export interface Journal<R> {
  append(record: R): void;
  // Records appended since the last compaction (or the open), to decide when to compact.
  readonly appended: number;
  compact(snapshot: R[]): void;
  close(): void;
}

export function openJournal<R>(file: string): { records: R[]; journal: Journal<R> } {
  mkdirSync(dirname(file), { recursive: true });
  const records: R[] = [];
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const whole = text.slice(0, text.lastIndexOf('\n') + 1); // without a torn last line: never acknowledged
  for (const line of whole.split('\n')) if (line) records.push(JSON.parse(line) as R);
  if (whole.length !== text.length) writeFileSync(file, whole);
  let fd = openSync(file, 'a');
  let appended = 0;
  const journal: Journal<R> = {
    append(record) {
      writeSync(fd, `${JSON.stringify(record)}\n`);
      appended++;
    },
    get appended() {
      return appended;
    },
    compact(snapshot) {
      const tmp = `${file}.tmp`;
      writeFileSync(tmp, snapshot.map((r) => `${JSON.stringify(r)}\n`).join(''));
      closeSync(fd);
      renameSync(tmp, file);
      fd = openSync(file, 'a');
      appended = 0;
    },
    close() {
      if (fd !== -1) closeSync(fd);
      fd = -1;
    },
  };
  return { records, journal };
}
