import { generateKeyPairSync } from 'node:crypto';
import { createRequire } from 'node:module';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../infra/local/console';
import { launchChromium } from '../browser';
import { startNpmNode } from '../node';
import { paste, readmeBlocks } from '../readme';
import { screenshotPath } from '../screenshots';
import { startTestStack, type TestStack } from '../stack';
import { ok } from '../world';

// The back-office console (infra/local/console.ts, console/): its two doors to the service, and
// in a browser (Debian's Chromium, driven by playwright-core; .ci/run installs it), the dashboard,
// the payments list and the payment's trace after the README's walkthrough, which it also
// photographs (for the docs with `npm run docs:images`).
const SCREENSHOT = screenshotPath('dashboard.png');
const PAYMENTS_SCREENSHOT = screenshotPath('payments.png');
const TRACE_SCREENSHOT = screenshotPath('trace.png');
const TRANSFERS_SCREENSHOT = screenshotPath('transfers.png');
const { WIDGETS } = createRequire(import.meta.url)('../../infra/serverless/dashboard.cjs');

describe('the console server', () => {
  // One stack for the file (its functions read their settings once a process), on a secret of the
  // operator's own: what the console signs with only given PROXY_ALLOW_CUSTOM_SECRET=1.
  let s: TestStack;
  beforeAll(async () => {
    s = await startTestStack({ ADMIN_API_SECRET: 'an-operators-own-secret-0123456789' });
  });
  afterAll(() => s.stop());
  const optIn = { PROXY_ALLOW_CUSTOM_SECRET: '1' };

  it('serves its page and a modest bundle, signs Admin API requests for it, gives the dashboard, and refuses other sites', async () => {
    const server = await startConsole({
      port: 0,
      node: 'A',
      adminUrl: s.adminUrl,
      secret: s.env.ADMIN_API_SECRET,
      metrics: s.metrics,
      traces: s.traces,
      env: optIn,
    });
    const get = (path: string, headers: Record<string, string> = {}) => fetch(server.url + path, { headers });
    try {
      const page = await get('/');
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<body data-node="A">');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
      const [js, css] = await Promise.all([get('/console.js'), get('/console.css')]);
      expect([js.status, css.status]).toEqual([200, 200]);
      // Preact, uPlot and the console's own code, minified.
      expect((await js.text()).length).toBeLessThan(120 * 1024);
      expect((await css.text()).length).toBeLessThan(16 * 1024);

      // The Admin API, signed by the console: no signature from the page.
      const created = await fetch(`${server.url}/admin/assets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"code":"USD","scale":2}',
      });
      expect(created.status).toBe(201);
      expect((await (await get('/admin/assets')).json()).items.map((a: { code: string }) => a.code)).toEqual(['USD']);
      const refused = await fetch(`${server.url}/admin/assets`, {
        method: 'POST',
        headers: { origin: 'http://evil.example' },
        body: '{"code":"EUR","scale":2}',
      });
      expect(refused.status).toBe(403);
      expect((await get('/local/dashboard', { origin: 'http://evil.example' })).status).toBe(403);

      const dashboard = await (await get('/local/dashboard?minutes=10')).json();
      expect(dashboard.minutes).toBe(10);
      expect(dashboard.widgets.map((w: { title: string }) => w.title)).toEqual(WIDGETS.map((w: { title: string }) => w.title));
      const requests = dashboard.widgets.find((w: { title: string }) => w.title === 'API requests').series;
      expect(requests.map((x: { label: string }) => x.label)).toEqual(['ApiGatewayRestApi Count']);
      expect(dashboard.alarms.length).toBeGreaterThan(75);

      // The traces the node recorded, most recent first: the asset's listing, and its creation.
      const recent = (await (await get('/local/traces')).json()).items;
      expect(recent.slice(0, 2)).toMatchObject([
        { id: expect.stringMatching(/^1-[0-9a-f]{8}-[0-9a-f]{24}$/), name: 'payment-service-local-admin', failed: false },
        { name: 'payment-service-local-admin', failed: false },
      ]);
      const functionsOf = async (id: string) => (await (await get(`/local/traces/${id}`)).json()).documents.map((d: { name: string }) => d.name).sort();
      expect(await functionsOf(recent[0].id)).toEqual(['assetsList', 'payment-service-local-admin']);
      expect(await functionsOf(recent[1].id)).toEqual(['assetsCreate', 'payment-service-local-admin']);
      expect((await (await get('/local/traces?paymentId=nothing-of-that-id')).json()).items).toEqual([]);
      expect((await get('/local/traces/1-00000000-000000000000000000000000')).status).toBe(404);
      expect((await get('/local/traces', { origin: 'http://evil.example' })).status).toBe(403);
    } finally {
      await server.stop();
    }
  });

  // Issue 28, item 6: with a secret of the operator's own, the console signed for anyone on the
  // machine (an unsigned withdrawal through it was 200), where the signing proxy refuses to run.
  it('signs with a secret other than the local default only when PROXY_ALLOW_CUSTOM_SECRET=1 says so, as the proxy', async () => {
    const options = { port: 0, node: 'B', adminUrl: s.adminUrl, secret: s.env.ADMIN_API_SECRET, metrics: s.metrics, traces: s.traces };
    const asset = await ok(s.admin('POST', '/assets', { code: 'GBP', scale: 2 }));
    await ok(s.admin('POST', `/assets/${asset.id}/liquidity`, { amount: '1000' }), 200);
    const withdraw = (console: { url: string }) =>
      fetch(`${console.url}/admin/assets/${asset.id}/liquidity-withdrawals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"amount":"400"}',
      });
    const guarded = await startConsole({ ...options, env: {} });
    try {
      const refused = await withdraw(guarded);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toBe('application/problem+json');
      expect(await refused.json()).toMatchObject({ code: 'console_signing_off', detail: expect.stringContaining('PROXY_ALLOW_CUSTOM_SECRET=1') });
      expect((await fetch(`${guarded.url}/admin/assets`)).status).toBe(403);
      expect((await ok(s.admin('GET', `/assets/${asset.id}`), 200)).liquidity.value).toBe('1000'); // nothing moved
      // The rest of the console works.
      expect((await fetch(`${guarded.url}/local/dashboard`)).status).toBe(200);
      expect((await fetch(`${guarded.url}/`)).status).toBe(200);
    } finally {
      await guarded.stop();
    }
    const optedIn = await startConsole({ ...options, env: optIn });
    try {
      expect((await withdraw(optedIn)).status).toBe(200);
      expect((await ok(s.admin('GET', `/assets/${asset.id}`), 200)).liquidity.value).toBe('600');
    } finally {
      await optedIn.stop();
    }
  });
});

describe('the console in a browser', () => {
  it('after "Walk through a payment", shows the payment on the dashboard, in the payments list and in its trace, redelivers its webhook, finds the ledger balanced, and revokes an app’s grant', async () => {
    // The functions' own metrics on, as under a user's npm start (the tests turn them off); the
    // back office signs with the test's secret, which takes the opt-in.
    const a = await startNpmNode('start', { env: { POWERTOOLS_METRICS_DISABLED: '', PROXY_ALLOW_CUSTOM_SECRET: '1' } });
    const browser = await launchChromium({ width: 1280, height: 900 });
    try {
      const [block] = readmeBlocks('Walk through a payment');
      const { answers, stdout, stderr } = await paste(block, { a });
      const payment = answers.at(-2)?.body;
      expect(payment?.state, stdout + stderr).toBe('completed');

      const page = await browser.newPage();
      const problems: string[] = [];
      page.on('pageerror', (e) => problems.push(e.message));
      page.on('console', (m) => m.type() === 'error' && problems.push(m.text()));
      page.on('request', (r) => r.url().startsWith(`${a.console}/`) || problems.push(`a request away from the console: ${r.url()}`));
      await page.goto(a.console);
      await page.getByRole('status').filter({ hasText: 'Admin API 0.1.0' }).waitFor();
      const completed = page.locator('section[aria-label="Payments by outcome"] tr[data-series="Payments outcome=completed"] td.value');
      await completed.waitFor();
      expect(await completed.textContent()).toBe('1');
      expect(await page.locator('section[aria-label="Alarms"] h2').textContent()).toMatch(/\d+ OK 0 in ALARM/);
      expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Dashboard');
      // The page's own door to the Admin API, which the console signs.
      const seen = await page.evaluate(async (id) => (await fetch(`/admin/payments/${id}`)).json(), payment.id);
      expect(seen).toMatchObject({ id: payment.id, state: 'completed' });

      // The walkthrough took a minute or two: the last quarter of an hour shows it best.
      await page.getByRole('button', { name: '15 min' }).click();
      await page.locator('.dashboard[data-minutes="15"]').waitFor();
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      // The back office: the payment in the payments list, completed.
      await page.getByRole('link', { name: 'Payments' }).click();
      const row = page.locator(`table[aria-label="Payments"] tr[data-id="${payment.id}"]`);
      await row.waitFor();
      expect(await row.locator('.state').textContent()).toBe('completed');
      expect(await row.textContent()).toContain('100.00 USD');
      await page.screenshot({ path: PAYMENTS_SCREENSHOT, fullPage: true });

      // Its trace: one, from its creation through the webhook, the FSP's funding (which carried the
      // trace on) and the outbox to the worker, whose span holds its DynamoDB calls.
      await row.getByRole('link', { name: 'Trace' }).click();
      const trace = page.locator('section[aria-label="Trace"]');
      const worker = trace.locator('tr[data-origin="AWS::Lambda::Function"][data-name="paymentsWorker"]');
      await worker.waitFor();
      expect(await trace.count()).toBe(1);
      expect(await trace.locator('tbody tr').first().textContent()).toContain('POST /payments');
      expect(await trace.locator('tr[data-name="paymentsFund"]').count()).toBe(1);
      const calls = trace.locator(`tr[data-parent="${await worker.getAttribute('data-id')}"][data-namespace="aws"] td.span-name`);
      // The payment and its intent, the delivery, and the payout asset (EUR) for its liquidity
      // threshold, which a container keeps 10 s (it can change: PATCH /assets/{id}).
      expect((await calls.allTextContents()).sort()).toEqual(['DynamoDB GetItem', 'DynamoDB GetItem', 'DynamoDB GetItem', 'DynamoDB TransactWriteItems']);
      await page.screenshot({ path: TRACE_SCREENSHOT, fullPage: true });

      // A refused action shows the problem's detail in its confirmation, and changes nothing.
      await page.getByRole('link', { name: 'Assets' }).click();
      const usd = page.locator('table[aria-label="Assets"] tr', { hasText: 'USD' });
      await usd.getByRole('button', { name: 'Withdraw' }).click();
      const dialog = page.getByRole('dialog', { name: 'Withdraw' });
      await dialog.getByLabel('Amount').fill('1000000.00');
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      expect(await dialog.getByRole('alert').textContent()).toContain('less liquidity than 100000000');
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'detached' });

      // A two-phase withdrawal: held from the EUR liquidity, listed on the Withdrawals page until it is posted there.
      await page.locator('table[aria-label="Assets"] tr', { hasText: 'EUR' }).getByRole('button', { name: 'Hold' }).click();
      const holding = page.getByRole('dialog', { name: 'Hold' });
      await holding.getByLabel('Amount').fill('1.00');
      await holding.getByRole('button', { name: 'Confirm' }).click();
      await holding.waitFor({ state: 'detached' });
      await page.getByRole('link', { name: 'Withdrawals' }).click();
      const held = page.locator('table[aria-label="Withdrawals"] tbody tr', { hasText: '1.00 EUR' });
      await held.waitFor();
      expect(await held.locator('.state').textContent()).toBe('pending');
      await held.getByRole('button', { name: 'Post' }).click();
      const posting = page.getByRole('dialog', { name: 'Post' });
      await posting.getByRole('button', { name: 'Confirm' }).click();
      await posting.waitFor({ state: 'detached' });
      await held.waitFor({ state: 'detached' }); // posted: no longer held

      // Redeliver the payment's payment.completed event: one more attempt appears.
      await page.getByRole('link', { name: 'Webhook events' }).click();
      await page.getByLabel('Resource id').fill(payment.id);
      await page.getByLabel('Resource id').press('Enter');
      const event = page.locator('table[aria-label="Webhook events"] tr', { hasText: 'payment.completed' });
      const attempts = event.locator('.attempts summary');
      await attempts.waitFor();
      const before = Number(await attempts.getAttribute('data-count'));
      expect(before).toBeGreaterThan(0);
      await event.getByRole('button', { name: 'Redeliver' }).click();
      const redeliver = page.getByRole('dialog', { name: 'Redeliver' });
      await redeliver.getByRole('button', { name: 'Confirm' }).click();
      await redeliver.waitFor({ state: 'detached' }); // accepted (202)
      await expect
        .poll(
          async () => {
            await page.getByRole('button', { name: 'Reload' }).click();
            return Number(await attempts.getAttribute('data-count'));
          },
          { timeout: 60_000, interval: 250 },
        )
        .toBe(before + 1);

      // The ledger check: every asset's accounts sum to zero.
      await page.getByRole('link', { name: 'Ledger check' }).click();
      await page.getByRole('status').filter({ hasText: 'Balanced' }).waitFor();
      expect(await page.locator('table[aria-label="Ledger check"] tr[data-asset] .badge').allTextContents()).toEqual(['zero', 'zero']);

      // An account's transfers, from the ledger check: EUR's liquidity, its deposit and the 92.00 EUR
      // it paid Bob's intent, 21 deposits more so that it takes two pages; then the intent's own.
      const eurId = await page.locator('table[aria-label="Ledger check"] tr[data-asset="EUR"]').evaluate((row) => row.getAttribute('data-asset-id'));
      await page.evaluate(async (id) => {
        for (let i = 0; i < 21; i++)
          await fetch(`/admin/assets/${id}/liquidity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":"100"}' });
      }, eurId);
      await page.locator('table[aria-label="Ledger check"] tr[data-asset="EUR"]').getByRole('link', { name: 'Liquidity' }).click();
      const transfers = page.locator('table[aria-label="Transfers"] tbody tr');
      await transfers.first().waitFor();
      expect(await transfers.count()).toBe(20);
      expect(await transfers.first().textContent()).toContain('deposit');
      await page.getByRole('button', { name: 'Next page' }).click();
      await page.locator('.pager', { hasText: 'Page 2' }).waitFor();
      await page.locator('table[aria-label="Transfers"] tr', { hasText: '-92.00 EUR' }).waitFor();
      expect((await transfers.allTextContents()).map((row) => /deposit|withdrawal|payment/.exec(row)?.[0])).toEqual([
        'deposit',
        'withdrawal',
        'payment',
        'deposit',
      ]); // the withdrawal: the 1.00 EUR held above
      expect(await transfers.last().textContent()).toContain('10000.00 EUR');
      await page.screenshot({ path: TRANSFERS_SCREENSHOT, fullPage: true });
      const payment92 = page.locator('table[aria-label="Transfers"] tr', { hasText: '-92.00 EUR' });
      await payment92.getByRole('link', { name: /^intent:/ }).click();
      await page.locator('.pager', { hasText: 'Page 1' }).waitFor();
      await page.locator('table[aria-label="Transfers"] tr', { hasText: '92.00 EUR' }).waitFor();
      expect(await transfers.count()).toBe(1);
      expect(await transfers.first().textContent()).not.toContain('-92.00');
      // Back to the ledger check, which the tenant below has too (that intent's account it has not: 404).
      await page.getByRole('link', { name: 'Ledger check' }).click();
      await page.getByRole('status').filter({ hasText: 'Balanced' }).waitFor();

      // An app's grant, on the Grants page: revoked from its row, its token refused at the app's next call.
      const { privateKey } = generateKeyPairSync('ed25519');
      const appWallet = await ok(a.admin('POST', '/wallet-addresses', { address: `${a.wallets}/an-app`, assetCode: 'USD', publicName: 'An app' }));
      await ok(a.admin('POST', `/wallet-addresses/${appWallet.id}/keys`, generateJwk({ privateKey, keyId: 'an-app' })));
      const app = await createAuthenticatedClient({ walletAddressUrl: appWallet.address, privateKey, keyId: 'an-app', validateResponses: true });
      const { authServer, resourceServer } = await app.walletAddress.get({ url: appWallet.address });
      const access = [{ type: 'incoming-payment', actions: ['create', 'read', 'list'], identifier: appWallet.address }];
      const grant = await app.grant.request({ url: authServer }, { access_token: { access } } as never);
      if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant issued at once');
      await page.getByRole('link', { name: 'Grants' }).click();
      const granted = page.locator('table[aria-label="Grants"] tbody tr', { hasText: appWallet.address });
      await granted.waitFor();
      expect(await granted.locator('.state').textContent()).toBe('approved');
      await granted.getByRole('button', { name: 'Revoke' }).click();
      const revoking = page.getByRole('dialog', { name: 'Revoke' });
      await revoking.getByRole('button', { name: 'Confirm' }).click();
      await revoking.waitFor({ state: 'detached' });
      await expect.poll(() => granted.locator('.state').textContent()).toBe('revoked');
      const listed = app.incomingPayment.list({ url: resourceServer, walletAddress: appWallet.address, accessToken: grant.access_token.value });
      await expect(listed).rejects.toMatchObject({ status: 401 });

      // A tenant: the switch appears once the deployment has one, and on it the console shows the
      // tenant's data only (the operator's secret acts for the tenant), and the operator's again after.
      const tenant = await page.evaluate(async (prefix) => {
        const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
          fetch(`/admin${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then((r) =>
            r.json(),
          );
        const t = await post('/tenants', { name: 'Acme', walletAddressPrefix: prefix });
        await post('/assets', { code: 'GBP', scale: 2 }, { 'tenant-id': t.id });
        return t as { id: string };
      }, `http://localhost:${a.ports.OPEN_PAYMENTS_PORT}/acme`);
      await page.reload();
      const tenants = page.getByLabel('Tenant');
      await tenants.waitFor();
      await tenants.selectOption({ label: 'Acme' });
      await page.getByRole('link', { name: 'Assets' }).click();
      const assets = page.locator('table[aria-label="Assets"] tbody tr');
      await page.locator('table[aria-label="Assets"] tr', { hasText: 'GBP' }).waitFor();
      expect(await assets.count()).toBe(1); // the tenant's one asset: none of the operator's
      expect(await tenants.inputValue()).toBe(tenant.id);
      await page.screenshot({ path: screenshotPath('tenant.png'), fullPage: true });
      await tenants.selectOption({ label: 'operator' });
      await page.getByRole('link', { name: 'Assets' }).click();
      await page.locator('table[aria-label="Assets"] tr', { hasText: 'USD' }).waitFor();
      expect(await page.locator('table[aria-label="Assets"] tr', { hasText: 'GBP' }).count()).toBe(0);
      // A chosen tenant deleted meanwhile: the page goes back to the operator's data (no tab left stuck on 401s).
      await page.getByLabel('Tenant').selectOption({ label: 'Acme' });
      await page.locator('table[aria-label="Assets"] tr', { hasText: 'GBP' }).waitFor();
      expect(await page.evaluate(async (id) => (await fetch(`/admin/tenants/${id}`, { method: 'DELETE' })).status, tenant.id)).toBe(204);
      await page.reload();
      await page.locator('table[aria-label="Assets"] tr', { hasText: 'USD' }).waitFor();
      expect(await page.getByLabel('Tenant').count()).toBe(0); // no active tenant left: no switch

      // Chromium logs the refused withdrawal's 422 itself; the page showed it (above), nothing else went wrong.
      expect(problems).toEqual(['Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)']);
      expect(a.output()).not.toContain('"_aws"'); // the functions' metrics went to the runtime, not to the log
    } finally {
      await browser.close();
      await a.stop();
    }
  }, 300_000);
});
