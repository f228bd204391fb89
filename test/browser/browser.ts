import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import type { LocalOperators } from '../../infra/local/start/operators';

// Headless Chromium from Debian's `chromium` package (installed by .ci/run; no browser download),
// driven by playwright-core, for the tests that look at pages as a person does. A fresh profile
// each time, under the system's temporary folder (Chromium still writes to it as it closes).
export const CHROMIUM = '/usr/bin/chromium';
// How long a page may take to show what a test waits for: a backstop (the test waits for what a
// person would see), far beyond a loaded 2-core machine's slowest page, and under the test's own.
export const BROWSER_WAIT_MS = 120_000;
export const PAGE_WAIT = { timeout: BROWSER_WAIT_MS, interval: 100 }; // for expect.poll

export async function launchChromium(viewport: { width: number; height: number }): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`No ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  const context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'chromium-')), {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport,
  });
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  return context;
}

// Signs in on the console's form, and waits for the header to name the operator.
export async function signIn(page: Page, name: string, password: string) {
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('header .who', { hasText: name }).waitFor();
}

// A new page of the console at `url`, signed in as an operator made here (an admin unless said):
// the page keeps its token for the tab, so it may go to any of the console's pages after.
export async function signedInPage(
  browser: BrowserContext,
  url: string,
  operators: LocalOperators,
  name = 'admin@fsp.example',
  role: 'viewer' | 'operator' | 'admin' = 'admin',
): Promise<Page> {
  const password = 'A-long-Passw0rd!';
  operators.add({ name, password, role });
  const page = await browser.newPage();
  await page.goto(url);
  await signIn(page, name, password);
  return page;
}
