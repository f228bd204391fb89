import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../infra/local/serverless-config';

// The documents link only to files that exist.
describe('the documents', () => {
  for (const doc of ['README.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'localstack/README.md']) {
    it(`${doc} links only to files of the repository that exist`, () => {
      const text = readFileSync(join(ROOT, doc), 'utf8');
      const links = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l));
      for (const link of links) expect(existsSync(join(ROOT, dirname(doc), link)), `${doc} -> ${link}`).toBe(true);
    });
  }
});
