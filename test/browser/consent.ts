import { type Choice, finishHash } from '../../infra/local/fsp/idp';
import { BROWSER_WAIT_MS, launchChromium } from './browser';
import { screenshot } from './screenshots';

// The user's consent to an interactive Open Payments grant, as tests give it: in a real browser
// (Debian's Chromium, driven by playwright-core) on the FSP simulator's consent page, or, for the
// many cases that need no browser, as the consent page itself does it, through the authorization
// server's IdP interface. Both start at the grant's `interact.redirect` and end where the
// authorization server sends the browser back: the client's finish URI with its query.

export interface BrowserConsent {
  finish: URL; // the finish URI as the browser was sent to it (hash, interact_ref, or result)
  consentText: string; // what the consent page said, before the click
}

// `finishUri`: the grant's finish URI; the browser's request to it is answered here (the app need
// not run). `screenshot`: the name of a PNG of the consent page, taken before the click (./screenshots.ts).
export async function consentInBrowser(
  redirectUrl: string,
  choice: Choice,
  opts: { finishUri: string; screenshot?: string; timeoutMs?: number },
): Promise<BrowserConsent> {
  const browser = await launchChromium({ width: 900, height: 1000 });
  try {
    let finished: (url: URL) => void = () => undefined;
    const reached = new Promise<URL>((ok) => {
      finished = ok;
    });
    await browser.route(
      (url) => url.href.startsWith(opts.finishUri),
      (route) => {
        finished(new URL(route.request().url()));
        return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>App</title><p>Back at the app.</p>' });
      },
    );
    const page = await browser.newPage();
    page.setDefaultTimeout(opts.timeoutMs ?? BROWSER_WAIT_MS);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(redirectUrl);
    await page.locator(`#${choice}`).waitFor();
    const consentText = (await page.locator('main').textContent()) ?? '';
    if (opts.screenshot) await screenshot(page, opts.screenshot);
    await page.click(`#${choice}`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`The browser did not reach ${opts.finishUri}; it is at ${page.url()}`)), opts.timeoutMs ?? BROWSER_WAIT_MS);
    });
    const finish = await Promise.race([reached, late]).finally(() => clearTimeout(timer));
    if (problems.length) throw new Error(`The consent page had errors: ${problems.join('; ')}`);
    return { finish, consentText };
  } finally {
    await browser.close();
  }
}

// Consent as the consent page gives it, without a browser, and the hash an app checks: shared
// with `npm run op-app-demo` (infra/local/fsp/idp.ts).
export { type Choice, consentViaIdp, interactionOf } from '../../infra/local/fsp/idp';

export function hashVerifies(finish: URL, clientNonce: string, serverNonce: string, authServer: string): boolean {
  const ref = finish.searchParams.get('interact_ref');
  return !!ref && finish.searchParams.get('hash') === finishHash(clientNonce, serverNonce, ref, authServer);
}
