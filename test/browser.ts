import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

// Headless Chromium from Debian's `chromium` package (installed by .ci/run; no browser download),
// driven by playwright-core, for the tests that look at pages as a person does. A fresh profile
// each time, under the system's temporary folder (Chromium still writes to it as it closes).
export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(viewport: { width: number; height: number }): Promise<BrowserContext> {
  if (!existsSync(CHROMIUM)) throw new Error(`No ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'chromium-')), {
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
}
