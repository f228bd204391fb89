import { execFile } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../infra/local/start/console';
import { ID_TOKEN_SECS, localOperators } from '../../infra/local/start/operators';
import { ROOT } from '../../infra/local/start/serverless-config';
import { BROWSER_WAIT_MS, launchChromium, signIn } from '../browser/browser';
import { DOCS_IMAGES, screenshot } from '../browser/screenshots';
import { docsPorts, startNpmNode } from '../harness/node';
import { startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { ok, waitFor } from '../harness/world';
import { paste, readmeBlocks } from '../readers/readme';

// The back-office console (functions/console, infra/local/start/console.ts, console/): its page and its
// door to the Admin API behind the local sign-in, and in a browser (Debian's Chromium, driven by playwright-core; .ci/run installs it), the dashboard,
// the payments list and the payment's trace after the README's walkthrough, which it also
// photographs (for the docs with `npm run docs:images`).
const { WIDGETS } = createRequire(import.meta.url)('../../infra/serverless/dashboard.cjs');

describe('the console server', () => {
  // One stack for the file (its functions read their settings once a process), its operators in
  // memory: one of each role, and an operator of one tenant.
  let s: TestStack;
  let server: Awaited<ReturnType<typeof startConsole>>;
  let tenantId: string;
  let tenantSecret: string;
  const PASSWORD = 'A-long-Passw0rd!';
  const token: Record<string, string> = {};
  beforeAll(async () => {
    s = await startTestStack();
    const tenant = await ok(s.admin('POST', '/tenants', { name: 'Tenant T', walletAddressPrefix: `${s.env.WALLET_ADDRESS_URL}/acme` }));
    tenantId = tenant.id;
    tenantSecret = tenant.adminApiSecret;
    for (const role of ['viewer', 'operator', 'admin'] as const) s.operators.add({ name: `${role}@fsp.example`, password: PASSWORD, role });
    s.operators.add({ name: 'tenant-admin@fsp.example', password: PASSWORD, role: 'admin', tenant: tenantId });
    for (const name of ['viewer', 'operator', 'admin', 'tenant-admin']) token[name] = s.operators.signIn(`${name}@fsp.example`, PASSWORD)!.idToken;
    server = await startConsole({ port: 0, adminUrl: s.adminUrl, operators: s.operators, metrics: s.metrics, traces: s.traces });
  });
  afterAll(async () => {
    await server?.stop();
    await s.stop();
  });
  // The console's API on the Admin API, as the page calls it: the operator's ID token, no signature.
  const api = (as: string | undefined, method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) =>
    fetch(`${s.adminUrl}/console/api${path}`, {
      method,
      headers: { ...(as !== undefined && { authorization: as }), ...(init.body && { 'content-type': 'application/json' }), ...init.headers },
      body: init.body,
    });
  const codesOf = async () => (await ok(s.admin('GET', '/assets'), 200)).items.map((a: { code: string }) => a.code).sort();

  it("serves its page, a modest bundle and how to sign in, on the Admin API and on the console's port, and refuses other sites", async () => {
    for (const page of [await fetch(`${s.adminUrl}/console`), await fetch(`${server.url}/`)]) {
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<body data-node="test.node-a">');
      expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    }
    const [js, css] = await Promise.all([fetch(`${server.url}/console/console.js`), fetch(`${s.adminUrl}/console/console.css`)]);
    expect([js.status, css.status]).toEqual([200, 200]);
    // Preact, uPlot and the console's own code, minified.
    expect((await js.text()).length).toBeLessThan(120 * 1024);
    expect((await css.text()).length).toBeLessThan(16 * 1024);
    expect(await (await fetch(`${server.url}/console/config.json`)).json()).toEqual({ signIn: { kind: 'local' } });
    expect((await fetch(`${s.adminUrl}/console/nothing`)).status).toBe(404);
    expect((await fetch(`${server.url}/`, { headers: { origin: 'http://evil.example' } })).status).toBe(403);
    expect((await fetch(`${server.url}/local/dashboard`, { headers: { origin: 'http://evil.example', authorization: token.admin } })).status).toBe(403);
  });

  it("hands each request to its route's function with its path parameters, query, headers and body as sent, and answers what it answers", async () => {
    const created = await api(token.admin, 'POST', '/assets', { body: '{"code":"USD","scale":2}', headers: { 'idempotency-key': 'usd-1' } });
    expect(created.status).toBe(201);
    const usd = await created.json();
    // The Idempotency-Key reached the route: the same request is replayed, another body under it refused.
    const again = await api(token.admin, 'POST', '/assets', { body: '{"code":"USD","scale":2}', headers: { 'idempotency-key': 'usd-1' } });
    expect([again.status, (await again.json()).id]).toEqual([201, usd.id]);
    const reused = await api(token.admin, 'POST', '/assets', { body: '{"code":"EUR","scale":2}', headers: { 'idempotency-key': 'usd-1' } });
    expect([reused.status, (await reused.json()).code]).toEqual([422, 'idempotency_key_reused']);
    // The content type too (the route refuses another), and the body's bytes as they were.
    const text = await api(token.admin, 'POST', '/assets', { body: '{"code":"GBP","scale":2}', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    const lone = await api(token.admin, 'POST', '/assets', { body: '{"code":"\\ud800","scale":2}' });
    expect([lone.status, (await lone.json()).detail]).toEqual([400, expect.stringContaining('unpaired UTF-16 surrogate')]);
    // Path parameters, and the query.
    expect(await (await api(token.viewer, 'GET', `/assets/${usd.id}`)).json()).toMatchObject({ id: usd.id, code: 'USD' });
    expect((await (await api(token.viewer, 'GET', '/assets?limit=1')).json()).items).toHaveLength(1);
    const badQuery = await api(token.viewer, 'GET', '/assets?color=red');
    expect([badQuery.status, (await badQuery.json()).code]).toEqual([400, 'invalid_request']);
    // The tenant-id header: the tenant's data, none yet.
    expect((await (await api(token.admin, 'GET', '/assets', { headers: { 'tenant-id': tenantId } })).json()).items).toEqual([]);
    // A path no route serves, and a method its route does not.
    const none = await api(token.admin, 'GET', '/nothing/here');
    expect([none.status, none.headers.get('content-type'), (await none.json()).code]).toEqual([404, 'application/problem+json', 'not_found']);
    const method = await api(token.admin, 'DELETE', '/assets');
    expect([method.status, method.headers.get('allow')]).toEqual([405, 'GET, POST']);
    expect(await codesOf()).toEqual(['USD']);
  });

  it("refuses a missing, forged or expired token (401) and a role or tenant short of the route's (403 role_forbidden), changing nothing", async () => {
    const body = '{"code":"JPY","scale":0}';
    const another = localOperators();
    another.add({ name: 'admin@fsp.example', password: PASSWORD, role: 'admin' });
    const refusals = {
      none: await api(undefined, 'POST', '/assets', { body }),
      garbage: await api('not-a-token', 'POST', '/assets', { body }),
      forged: await api(another.idToken('admin@fsp.example'), 'POST', '/assets', { body }),
      expired: await api(s.operators.idToken('admin@fsp.example', -1), 'POST', '/assets', { body }),
    };
    for (const [why, res] of Object.entries(refusals)) expect(res.status, why).toBe(401);
    for (const as of [token.viewer, token.operator]) {
      const res = await api(as, 'POST', '/assets', { body });
      expect([res.status, (await res.json()).code]).toEqual([403, 'role_forbidden']);
    }
    // An operator of one tenant: that tenant's data, and no other's.
    const elsewhere = await api(token['tenant-admin'], 'GET', '/assets', { headers: { 'tenant-id': 'operator' } });
    expect([elsewhere.status, (await elsewhere.json()).code]).toEqual([403, 'role_forbidden']);
    expect((await (await api(token['tenant-admin'], 'GET', '/assets')).json()).items).toEqual([]);
    expect(await codesOf()).toEqual(['USD']);
    // The Admin API's own routes take no token for a signature.
    expect((await fetch(`${s.adminUrl}/assets`, { headers: { authorization: token.admin } })).status).toBe(401);
  });

  it('signs an operator in with a name and password, and keeps the dashboard and traces to signed-in operators', async () => {
    const signIn = (name: string, password: string) =>
      fetch(`${server.url}/local/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ name, password }) });
    for (const wrong of [await signIn('admin@fsp.example', 'A-long-Passw0rd?'), await signIn('nobody@fsp.example', PASSWORD)]) {
      expect([wrong.status, (await wrong.json()).code]).toEqual([401, 'unauthorized']);
    }
    const signedIn = await signIn('viewer@fsp.example', PASSWORD);
    const { idToken, expiresIn } = await signedIn.json();
    expect(expiresIn).toBe(ID_TOKEN_SECS);
    expect((await api(idToken, 'GET', '/assets')).status).toBe(200);

    const get = (path: string, as?: string) => fetch(server.url + path, { headers: as ? { authorization: as } : {} });
    for (const path of ['/local/dashboard', '/local/traces']) expect((await get(path)).status, path).toBe(401);
    const dashboard = await (await get('/local/dashboard?minutes=10', idToken)).json();
    expect(dashboard.minutes).toBe(10);
    expect(dashboard.widgets.map((w: { title: string }) => w.title)).toEqual(WIDGETS.map((w: { title: string }) => w.title));
    expect(dashboard.alarms.length).toBeGreaterThan(75);
    // The traces the node recorded, most recent first: the console's request, handed to its route.
    const recent = (await (await get('/local/traces', idToken)).json()).items;
    const functionsOf = async (id: string) => (await (await get(`/local/traces/${id}`, idToken)).json()).documents.map((d: { name: string }) => d.name).sort();
    expect(await functionsOf(recent[0].id)).toEqual(['assetsList', 'console', 'payment-service-local-admin']);
    // Named by the Admin route the console handed it to, not by the console's own greedy route.
    expect(recent[0].name).toBe('GET /assets');
    expect((await get('/local/traces/1-00000000-000000000000000000000000', idToken)).status).toBe(404);
  });

  // In a browser (Debian's Chromium): each role signs in on the console's form and sees and does
  // what its role allows, and no more; what it is not offered, forced through the page's door,
  // is refused and changes nothing.
  it('in a browser, signs in as viewer, operator, admin and a tenant operator, each offered and allowed what its role allows, and no more', async () => {
    const since = new Date().toISOString();
    await ok(s.admin('POST', '/assets', { code: 'CHF', scale: 2 }));
    const address = `${s.openPaymentsUrl}/held`;
    await ok(s.admin('POST', '/wallet-addresses', { address, assetCode: 'CHF', approvalRequired: true }));
    const intent = async () => (await ok(s.admin('POST', '/payment-intents', { walletAddress: address }))).id as string;
    const [forViewer, forOperator] = [await intent(), await intent()];
    const codes = await codesOf();
    const stateOf = async (id: string) => (await ok(s.admin('GET', `/payment-intents/${id}`), 200)).state;
    const tenantAddress = `${s.env.WALLET_ADDRESS_URL}/acme/carol`;
    const asTenant = tenantAdmin(s.adminUrl, tenantId, tenantSecret);
    await ok(asTenant('POST', '/assets', { code: 'CHF', scale: 2 }));
    await ok(asTenant('POST', '/wallet-addresses', { address: tenantAddress, assetCode: 'CHF' }));

    const browser = await launchChromium({ width: 1280, height: 900 });
    try {
      const as = async (role: string) => {
        const page = await browser.newPage();
        await page.addInitScript(PAGE_DOOR);
        await page.goto(server.url);
        await signIn(page, `${role}@fsp.example`, PASSWORD);
        return page;
      };
      const intentRow = (page: Page, id: string) => page.locator(`table[aria-label="Payment intents"] tr[data-id="${id}"]`);
      const forced = (page: Page, path: string, body?: unknown) =>
        page.evaluate(
          async ([path, body]) => {
            const res = await asOperator(path as string, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
            return { status: res.status, code: (await res.json()).code };
          },
          [path, body] as const,
        );
      const refused = { status: 403, code: 'role_forbidden' };

      // A viewer: reads every page, is offered no action, and is refused one forced through.
      const viewer = await as('viewer');
      expect(await viewer.locator('header .who').textContent()).toBe('viewer@fsp.example viewer');
      await viewer.getByRole('link', { name: 'Payment intents' }).click();
      await intentRow(viewer, forViewer).waitFor();
      expect(await viewer.locator('table[aria-label="Payment intents"] td.actions button').count()).toBe(0);
      await viewer.getByRole('link', { name: 'Assets' }).click();
      await viewer.locator('table[aria-label="Assets"] tr', { hasText: 'CHF' }).waitFor();
      expect(await viewer.locator('table[aria-label="Assets"] td.actions button').count()).toBe(0);
      expect(await forced(viewer, `/payment-intents/${forViewer}/approve`)).toEqual(refused);
      expect(await forced(viewer, '/assets', { code: 'SEK', scale: 2 })).toEqual(refused);
      expect(await stateOf(forViewer)).toBe('pending_approval');
      expect(await codesOf()).toEqual(codes);

      // An operator: approves an intent from the page; is not offered an admin's liquidity deposit,
      // and cannot create an asset.
      const operator = await as('operator');
      expect(await operator.locator('header .who').textContent()).toBe('operator@fsp.example operator');
      await operator.getByRole('link', { name: 'Payment intents' }).click();
      await intentRow(operator, forOperator).getByRole('button', { name: 'Approve' }).click();
      await operator.getByRole('dialog', { name: 'Approve' }).getByRole('button', { name: 'Confirm' }).click();
      await expect.poll(() => stateOf(forOperator)).toBe('pending');
      await operator.getByRole('link', { name: 'Assets' }).click();
      const chf = operator.locator('table[aria-label="Assets"] tr', { hasText: 'CHF' });
      await chf.waitFor();
      expect(await chf.getByRole('button').allTextContents()).toEqual([]);
      expect(await forced(operator, '/assets', { code: 'SEK', scale: 2 })).toEqual(refused);
      expect(await codesOf()).toEqual(codes);

      // An admin: offered the deposit, and creates an asset.
      const admin = await as('admin');
      await admin.getByRole('link', { name: 'Assets' }).click();
      await admin.locator('table[aria-label="Assets"] tr', { hasText: 'CHF' }).getByRole('button', { name: 'Deposit' }).waitFor();
      expect((await forced(admin, '/assets', { code: 'SEK', scale: 2 })).status).toBe(201);
      await admin.getByRole('button', { name: 'Reload' }).click();
      await admin.locator('table[aria-label="Assets"] tr', { hasText: 'SEK' }).waitFor();
      expect(await codesOf()).toEqual([...codes, 'SEK'].sort());

      // An operator of one tenant: that tenant's wallet addresses only, and no tenant switch.
      const tenantOperator = await as('tenant-admin');
      expect(await tenantOperator.locator('header .who').textContent()).toBe(`tenant-admin@fsp.example admin of tenant ${tenantId}`);
      await tenantOperator.getByRole('link', { name: 'Wallet addresses' }).click();
      await tenantOperator.locator('table[aria-label="Wallet addresses"] tr', { hasText: tenantAddress }).waitFor();
      expect(await tenantOperator.locator('table[aria-label="Wallet addresses"] tbody tr').count()).toBe(1);
      expect(await tenantOperator.getByLabel('Tenant').count()).toBe(0);

      // Every action each took or was refused is in the audit trail, under the operator's name and
      // role (the machine's signed requests above are in it too, under the key that signed them). It
      // is written from the table's stream, a moment after each action, and not in one order across
      // the records changed.
      const ofOperators = async () =>
        (await ok(s.admin('GET', `/audit-events?from=${since}&limit=50`), 200)).items.filter((e: any) => e.actor.kind === 'operator');
      const trail = await waitFor("the operators' actions in the audit trail", async () => ((await ofOperators()).length >= 5 ? ofOperators() : undefined));
      const rows = trail.map((e: any) => [e.actor.name, e.actor.role, e.action, e.outcome, e.status]);
      expect(rows).toHaveLength(5);
      expect(rows).toEqual(
        expect.arrayContaining([
          ['viewer@fsp.example', 'viewer', 'POST /payment-intents/{id}/approve', 'refused', 403],
          ['viewer@fsp.example', 'viewer', 'POST /assets', 'refused', 403],
          ['operator@fsp.example', 'operator', 'POST /payment-intents/{id}/approve', 'succeeded', 200],
          ['operator@fsp.example', 'operator', 'POST /assets', 'refused', 403],
          ['admin@fsp.example', 'admin', 'POST /assets', 'succeeded', 201],
        ]),
      );
      expect(trail.find((e: any) => e.outcome === 'succeeded' && e.actor.role === 'operator').resource).toEqual({ type: 'payment-intent', id: forOperator });

      // Signing out, and a token that expired, bring the sign-in back; an expired token is refused.
      await admin.getByRole('button', { name: 'Sign out' }).click();
      await admin.getByRole('button', { name: 'Sign in' }).waitFor();
      const expired = s.operators.idToken('operator@fsp.example', -1);
      await operator.evaluate((token) => sessionStorage.setItem('payment-service.id-token', token), expired);
      expect((await forced(operator, `/payment-intents/${forViewer}/cancel`, { reason: 'late' })).status).toBe(401);
      await operator.reload();
      await operator.getByRole('button', { name: 'Sign in' }).waitFor();
      expect(await stateOf(forViewer)).toBe('pending_approval');
    } finally {
      await browser.close();
    }
  });
});

// The page's door to the Admin API with the signed-in operator's token, as console/api.ts calls
// it, for a test to force a request the page does not offer (declared in the page's scope).
declare function asOperator(path: string, init?: RequestInit): Promise<Response>;
const PAGE_DOOR = () => {
  Object.assign(window, {
    asOperator: (path: string, init: RequestInit = {}) =>
      fetch(`console/api${path}`, { ...init, headers: { ...init.headers, authorization: sessionStorage.getItem('payment-service.id-token') ?? '' } }),
  });
};
const seededPassword = (dataDir: string, role: string): string => JSON.parse(readFileSync(join(dataDir, 'operators-seeded.json'), 'utf8'))[role];

describe('npm run operator', () => {
  const run = (dataDir: string, ...args: string[]) =>
    promisify(execFile)('npx', ['tsx', 'infra/local/tools/operator.ts', ...args], { cwd: ROOT, env: { ...process.env, LOCAL_DATA_DIR: dataDir } });

  it("adds an operator with a role and a tenant to a node's data folder, with a password it prints once, and refuses a role that is none", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'operators-'));
    const { stdout } = await run(dataDir, 'alice@fsp.example', 'operator', '--tenant', 'acme');
    const password = /with the password (\S+)$/m.exec(stdout)?.[1];
    expect(stdout).toContain('alice@fsp.example (operator of tenant acme) signs in');
    const operators = localOperators(dataDir);
    const claims = await operators.verify(operators.signIn('alice@fsp.example', password!)?.idToken);
    expect(claims).toMatchObject({ 'cognito:username': 'alice@fsp.example', 'cognito:groups': 'operator', 'custom:tenant': 'acme' });
    expect(statSync(join(dataDir, 'operators.json')).mode & 0o777).toBe(0o600);
    const refused = await run(dataDir, 'bob@fsp.example', 'root').catch((e: { code: number; stderr: string }) => e);
    expect(refused).toMatchObject({ code: 2, stderr: expect.stringContaining('usage: npm run operator') });
    expect(operators.signIn('bob@fsp.example', password!)).toBeUndefined();
  });
});

describe('the console in a browser', () => {
  it('after "Walk through a payment", shows the payment on the dashboard, in the payments list and in its trace, redelivers its webhook, finds the ledger balanced, and revokes an app’s grant', async () => {
    // The functions' own metrics on, as under a user's npm start (the tests turn them off); the
    // walkthrough's signing proxy signs with the test's secret, which takes the opt-in.
    // For the docs' images, on the default ports, whose URLs the README writes (the pages show them).
    const a = await startNpmNode('start', {
      ...(DOCS_IMAGES && { ports: await docsPorts() }),
      env: { POWERTOOLS_METRICS_DISABLED: '', PROXY_ALLOW_CUSTOM_SECRET: '1' },
    });
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
      await page.addInitScript(PAGE_DOOR);
      await page.goto(a.console);
      await signIn(page, 'admin', seededPassword(a.dataDir, 'admin'));
      await page.getByRole('status').filter({ hasText: 'Admin API 0.1.0' }).waitFor();
      const completed = page.locator('section[aria-label="Payments by outcome"] tr[data-series="Payments outcome=completed"] td.value');
      await completed.waitFor();
      expect(await completed.textContent()).toBe('1');
      expect(await page.locator('section[aria-label="Alarms"] h2').textContent()).toMatch(/\d+ OK 0 in ALARM/);
      expect(await page.locator('nav a[aria-current="page"]').textContent()).toBe('Dashboard');
      // The page's own door to the Admin API, with the admin's token.
      const seen = await page.evaluate(async (id) => (await asOperator(`/payments/${id}`)).json(), payment.id);
      expect(seen).toMatchObject({ id: payment.id, state: 'completed' });

      // The walkthrough took a minute or two: the last quarter of an hour shows it best.
      await page.getByRole('button', { name: '15 min' }).click();
      await page.locator('.dashboard[data-minutes="15"]').waitFor();
      await screenshot(page, 'dashboard.png');

      // The back office: the payment in the payments list, completed.
      await page.getByRole('link', { name: 'Payments' }).click();
      const row = page.locator(`table[aria-label="Payments"] tr[data-id="${payment.id}"]`);
      await row.waitFor();
      expect(await row.locator('.state').textContent()).toBe('completed');
      expect(await row.textContent()).toContain('100.00 USD');
      await screenshot(page, 'payments.png');

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
      // The payment, its intent and the intent's wallet address's status read together (one
      // BatchGetItem), the payout asset (EUR) for its liquidity threshold, and the delivery.
      expect((await calls.allTextContents()).sort()).toEqual(['DynamoDB BatchGetItem', 'DynamoDB GetItem', 'DynamoDB TransactWriteItems']);
      await screenshot(page, 'trace.png');

      // A refused action shows the problem's detail in its confirmation, and changes nothing.
      await page.getByRole('link', { name: 'Assets' }).click();
      const usd = page.locator('table[aria-label="Assets"] tr', { hasText: 'USD' });
      await usd.getByRole('button', { name: 'Withdraw' }).click();
      const dialog = page.getByRole('dialog', { name: 'Withdraw' });
      await dialog.getByLabel('Amount').fill('1000000.00');
      await dialog.getByRole('button', { name: 'Confirm' }).click();
      expect(await dialog.getByRole('alert').textContent()).toContain('less liquidity than 100000000');
      await dialog.getByRole('button', { name: 'Close' }).click();
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
          { timeout: BROWSER_WAIT_MS, interval: 250 },
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
          await asOperator(`/assets/${id}/liquidity`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":"100"}' });
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
      expect(await transfers.last().textContent()).toContain('10,000.00 EUR');
      await screenshot(page, 'transfers.png');
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
          asOperator(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }).then((r) => r.json());
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
      await screenshot(page, 'tenant.png');
      await tenants.selectOption({ label: 'operator' });
      await page.getByRole('link', { name: 'Assets' }).click();
      await page.locator('table[aria-label="Assets"] tr', { hasText: 'USD' }).waitFor();
      expect(await page.locator('table[aria-label="Assets"] tr', { hasText: 'GBP' }).count()).toBe(0);
      // A chosen tenant deleted meanwhile: the page goes back to the operator's data (no tab left stuck on 401s).
      await page.getByLabel('Tenant').selectOption({ label: 'Acme' });
      await page.locator('table[aria-label="Assets"] tr', { hasText: 'GBP' }).waitFor();
      expect(await page.evaluate(async (id) => (await asOperator(`/tenants/${id}`, { method: 'DELETE' })).status, tenant.id)).toBe(204);
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
  });
});
