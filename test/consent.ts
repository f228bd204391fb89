import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { LOCAL_IDP_SECRET } from '../infra/local/defaults';

// The user's consent to an interactive Open Payments grant, as tests give it: in a real browser
// (Debian's Chromium, driven by playwright-core) on the FSP simulator's consent page, or, for the
// many cases that need no browser, as the consent page itself does it, through the authorization
// server's IdP interface. Both start at the grant's `interact.redirect` and end where the
// authorization server sends the browser back: the client's finish URI with its query.
export const CHROMIUM = '/usr/bin/chromium';
export type Choice = 'accept' | 'reject';

export interface BrowserConsent {
  finish: URL; // the finish URI as the browser was sent to it (hash, interact_ref, or result)
  consentText: string; // what the consent page said, before the click
}

// `finishUri`: the grant's finish URI; the browser's request to it is answered here (the app need
// not run). `screenshot`: a PNG of the consent page, before the click.
export async function consentInBrowser(
  redirectUrl: string,
  choice: Choice,
  opts: { finishUri: string; screenshot?: string; timeoutMs?: number },
): Promise<BrowserConsent> {
  if (!existsSync(CHROMIUM)) throw new Error(`No ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium), as .ci/run does`);
  const profile = mkdtempSync(join(tmpdir(), 'chromium-consent-'));
  const browser = await chromium.launchPersistentContext(profile, {
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
    viewport: { width: 900, height: 1000 },
  });
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
    page.setDefaultTimeout(opts.timeoutMs ?? 15_000);
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(redirectUrl);
    await page.locator(`#${choice}`).waitFor();
    const consentText = (await page.locator('main').textContent()) ?? '';
    if (opts.screenshot) await page.screenshot({ path: opts.screenshot, fullPage: true });
    await page.click(`#${choice}`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, fail) => {
      timer = setTimeout(() => fail(new Error(`The browser did not reach ${opts.finishUri}; it is at ${page.url()}`)), opts.timeoutMs ?? 15_000);
    });
    const finish = await Promise.race([reached, late]).finally(() => clearTimeout(timer));
    if (problems.length) throw new Error(`The consent page had errors: ${problems.join('; ')}`);
    return { finish, consentText };
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

// The authorization server of an interaction URL (<AS>/interact/<id>/<nonce>?…), its id and nonce.
export function interactionOf(redirectUrl: string): { authServer: string; id: string; nonce: string } {
  const m = /^(.*)\/interact\/([^/?]+)\/([^/?]+)(?:\?.*)?$/.exec(redirectUrl);
  if (!m) throw new Error(`Not an interaction URL: ${redirectUrl}`);
  return { authServer: m[1], id: m[2], nonce: m[3] };
}

export interface IdpConsent {
  start: Response; // the start URL's answer (302 to the consent page)
  decision: Response; // POST /grant/{id}/{nonce}/{choice} (202)
  finishResponse: Response; // GET …/finish with the start's cookie (302 to the finish URI, or 202)
  finish?: URL; // where that sent the browser
  cookie: string; // the session cookie the start set ("gnap_session=…")
}

// As the consent page does it, with no browser: the start URL (keeping its cookie), the IdP's
// choice with x-idp-secret (default: the local one), then the finish URL with the cookie.
export async function consentViaIdp(redirectUrl: string, choice: Choice, opts: { idpSecret?: string } = {}): Promise<IdpConsent> {
  const { authServer, id, nonce } = interactionOf(redirectUrl);
  const start = await fetch(redirectUrl, { redirect: 'manual' });
  const cookie = (start.headers.get('set-cookie') ?? '').split(';')[0];
  const decision = await fetch(`${authServer}/grant/${id}/${nonce}/${choice}`, {
    method: 'POST',
    headers: { 'x-idp-secret': opts.idpSecret ?? LOCAL_IDP_SECRET },
  });
  const finishResponse = await fetch(`${authServer}/interact/${id}/${nonce}/finish`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const location = finishResponse.headers.get('location');
  return { start, decision, finishResponse, cookie, ...(location && { finish: new URL(location) }) };
}

// The hash a client checks on its finish URI: SHA-256, standard base64, over its nonce, the
// server's nonce (the grant's `interact.finish`), the interact_ref and the authorization server
// as wallet addresses publish it.
export const expectedHash = (clientNonce: string, serverNonce: string, interactRef: string, authServer: string) =>
  createHash('sha256').update(`${clientNonce}\n${serverNonce}\n${interactRef}\n${authServer}`).digest('base64');

export function hashVerifies(finish: URL, clientNonce: string, serverNonce: string, authServer: string): boolean {
  const ref = finish.searchParams.get('interact_ref');
  return !!ref && finish.searchParams.get('hash') === expectedHash(clientNonce, serverNonce, ref, authServer);
}
