import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { DEFAULT_PROXY_PORT, NODES } from '../../infra/local/start/defaults';
import { ROOT } from '../../infra/local/start/serverless-config';

// Where a browser test saves a screenshot: a temporary folder, so that `npm test` leaves every
// tracked file as it is; with DOCS_IMAGES=1 (`npm run docs:images`), the docs' own images in
// docs/img/, which the README and the docs show. Those are taken of nodes on their default ports
// (the README's URLs, localhost:3002/alice), never a test's free port.
export const DOCS_IMAGES = /^(1|true)$/i.test(process.env.DOCS_IMAGES ?? '');
const folder = DOCS_IMAGES ? join(ROOT, 'docs/img') : mkdtempSync(join(tmpdir(), 'screenshots-'));
mkdirSync(folder, { recursive: true });

export const screenshotPath = (name: string) => join(folder, name);

// The local ports the docs may show: each node's own and the signing proxy's.
const DOCS_PORTS = new Set([...Object.values(NODES.a.ports), ...Object.values(NODES.b.ports), DEFAULT_PROXY_PORT].map(String));

// The ports of localhost URLs in a page's text that are not those: a test's free ports.
export const testPortsIn = (text: string): string[] => [
  ...new Set([...text.matchAll(/localhost:(\d+)/g)].map((m) => m[1]).filter((port) => !DOCS_PORTS.has(port))),
];

// A screenshot of the whole page; for the docs, refused when the page shows a test's port.
export async function screenshot(page: Page, name: string): Promise<void> {
  const shown = DOCS_IMAGES ? testPortsIn((await page.locator('body').textContent()) ?? '') : [];
  if (shown.length) throw new Error(`${name} would show the test port(s) ${shown.join(', ')}: for the docs, run the node on its default ports`);
  await page.screenshot({ path: screenshotPath(name), fullPage: true });
}
