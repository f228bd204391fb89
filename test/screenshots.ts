import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../infra/local/serverless-config';

// Where a browser test saves a screenshot: a temporary folder, so that `npm test` leaves every
// tracked file as it is; with DOCS_IMAGES=1 (`npm run docs:images`), the docs' own images in
// docs/img/, which the README and the docs show.
const folder = /^(1|true)$/i.test(process.env.DOCS_IMAGES ?? '') ? join(ROOT, 'docs/img') : mkdtempSync(join(tmpdir(), 'screenshots-'));
mkdirSync(folder, { recursive: true });

export const screenshotPath = (name: string) => join(folder, name);
