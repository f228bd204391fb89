import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/start/serverless-config';

// The documents link only to files that exist; the README starts short and every page of docs/
// is linked from it; no page but the CHANGELOG tells the project's history.
const DOCS = readdirSync(join(ROOT, 'docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

describe('the documents', () => {
  it('the README is short, links every page of docs/, and docs/ speaks of no issue or past version', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(160);
    for (const doc of DOCS) expect(readme, doc).toContain(`](${doc})`);
    for (const doc of [...DOCS, 'README.md']) {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      expect(text, doc).not.toMatch(/\bissue \d|\bissues? #|write-path rework/i);
    }
  });

  for (const doc of ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'localstack/README.md', ...DOCS]) {
    it(`${doc} links only to files of the repository that exist`, () => {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      const links = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
      for (const link of links) expect(existsSync(join(ROOT, dirname(doc), link)), `${doc} -> ${link}`).toBe(true);
    });
  }
});
