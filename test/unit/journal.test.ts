import { appendFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJournal } from '../../infra/local/emulators/journal';

// The local emulators' append-only journal (infra/local/emulators/journal.ts), on a temporary file.
const file = () => join(mkdtempSync(join(tmpdir(), 'journal-')), 'sub', 'journal.jsonl');

describe('the local journal', () => {
  it('gives back what was appended, in order, after the writer is gone', () => {
    const path = file();
    const { journal } = openJournal<{ n: number }>(path);
    for (let n = 0; n < 3; n++) journal.append({ n });
    expect(journal.appended).toBe(3);
    // No close: as after a kill -9, what append wrote is in the file.
    expect(openJournal<{ n: number }>(path).records).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
  });

  it('drops a torn last line (a write cut by a crash, never acknowledged) and appends after the last whole one', () => {
    const path = file();
    openJournal(path).journal.append({ n: 1 });
    appendFileSync(path, '{"n":2, "bo');
    const { records, journal } = openJournal<{ n: number }>(path);
    expect(records).toEqual([{ n: 1 }]);
    journal.append({ n: 3 });
    expect(openJournal(path).records).toEqual([{ n: 1 }, { n: 3 }]);
  });

  it('compacts to a snapshot, and appends after it', () => {
    const path = file();
    const { journal } = openJournal<{ n: number }>(path);
    for (let n = 0; n < 5; n++) journal.append({ n });
    journal.compact([{ n: 4 }]);
    expect(journal.appended).toBe(0);
    journal.append({ n: 5 });
    expect(readFileSync(path, 'utf8')).toBe('{"n":4}\n{"n":5}\n');
  });
});
