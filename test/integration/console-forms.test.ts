import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../infra/local/start/console';
import { launchChromium, PAGE_WAIT, signedInPage } from '../browser/browser';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok } from '../harness/world';

// How long a page may take to show an answer, on a loaded machine (a condition, polled).

// The console's forms, in a browser (Debian's Chromium, driven by playwright-core): each creates or
// changes a record through the Admin API, shows the API's validation error at the field it names
// for bad input (changing nothing), and what changed on the page after.
describe('the console forms', () => {
  let s: TestStack;
  let server: Awaited<ReturnType<typeof startConsole>>;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  beforeAll(async () => {
    s = await startTestStack({ EXCHANGE_RATES_URL: '' });
    server = await startConsole({ port: 0, adminUrl: s.adminUrl, operators: s.operators });
    browser = await launchChromium({ width: 1280, height: 900 });
    page = await signedInPage(browser, server.url, s.operators);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await s?.stop();
  });

  const open = async (path: string) => {
    await page.goto(`${server.url}/#/${path}`);
    await page.locator('main .toolbar').waitFor();
  };
  const dialog = (name: string) => page.getByRole('dialog', { name });
  // The error shown at a field of a form, by the field's label.
  const errorAt = async (form: ReturnType<typeof dialog>, label: string) => {
    const field = form.getByLabel(label, { exact: true });
    await expect.poll(() => field.getAttribute('aria-invalid'), PAGE_WAIT).toBe('true');
    return form.locator(`#${await field.getAttribute('aria-describedby')}`).textContent();
  };
  const saved = async (form: ReturnType<typeof dialog>) => {
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    return page.locator('.said[role="status"]').textContent();
  };
  const list = async (path: string) => (await ok(s.admin('GET', `${path}?limit=100`), 200)).items;

  it('create an asset and change its threshold and fees, each refusal at its field', async () => {
    await open('assets');
    await page.getByRole('button', { name: 'New asset' }).click();
    const create = dialog('New asset');
    await create.getByLabel('Code').fill('us dollars');
    await create.getByRole('button', { name: 'Save' }).click();
    expect(await errorAt(create, 'Code')).toMatch(/\S/);
    expect(await list('/assets')).toEqual([]); // refused: nothing made
    await create.getByLabel('Code').fill('USD');
    await create.getByLabel('Low liquidity below').fill('1,000.00');
    expect(await saved(create)).toBe('Created USD (scale 2)');
    const row = page.locator('table[aria-label="Assets"] tr', { hasText: 'USD' });
    await expect.poll(() => row.textContent(), PAGE_WAIT).toContain('1,000.00');
    const [usd] = await list('/assets');
    expect(usd).toMatchObject({ code: 'USD', scale: 2, liquidityThreshold: '100000' });

    await row.getByRole('button', { name: 'Change' }).click();
    const change = dialog('Change USD');
    await change.getByLabel('Sending fee, fixed').fill('0.10');
    await change.getByLabel('Sending fee, basis points').fill('20000');
    await change.getByRole('button', { name: 'Save' }).click();
    expect(await errorAt(change, 'Sending fee, basis points')).toContain('10000');
    expect((await ok(s.admin('GET', `/assets/${usd.id}`), 200)).sendingFee).toBeUndefined();
    await change.getByLabel('Sending fee, basis points').fill('50');
    await change.getByLabel('Low liquidity below').fill('');
    expect(await saved(change)).toBe('Changed USD: low below: 1,000.00 → –; sending fee: – → 0.10 + 50 bps');
    await expect.poll(() => row.textContent(), PAGE_WAIT).toContain('0.10 + 50 bps');
    expect(await ok(s.admin('GET', `/assets/${usd.id}`), 200)).toMatchObject({ sendingFee: { fixed: '10', basisPoints: 50 } });
    expect((await ok(s.admin('GET', `/assets/${usd.id}`), 200)).liquidityThreshold).toBeUndefined();
  });

  it('create a wallet address once on a double click, and change its name and approval', async () => {
    await open('wallet-addresses');
    await page.getByRole('button', { name: 'New wallet address' }).click();
    const create = dialog('New wallet address');
    await create.getByLabel('Address').fill(`${s.openPaymentsUrl}/alice`);
    await create.getByLabel('Asset code').fill('usd');
    await create.getByRole('button', { name: 'Save' }).click();
    expect(await errorAt(create, 'Asset code')).toMatch(/\S/);
    await create.getByLabel('Asset code').fill('USD');
    await create.getByLabel('Public name').fill('Alice');
    await create.getByRole('button', { name: 'Save' }).dblclick();
    await create.waitFor({ state: 'detached' });
    expect(await page.locator('.said[role="status"]').textContent()).toBe(`Created ${s.openPaymentsUrl}/alice (USD)`);
    expect((await list('/wallet-addresses')).map((w: { publicName: string }) => w.publicName)).toEqual(['Alice']);

    const row = page.locator('table[aria-label="Wallet addresses"] tr', { hasText: '/alice' });
    await row.getByRole('button', { name: 'Change' }).click();
    const change = dialog(`Change ${s.openPaymentsUrl}/alice`);
    expect(await change.getByLabel('Status').inputValue()).toBe('active');
    await change.getByLabel('Public name').fill('x'.repeat(300));
    await change.getByRole('button', { name: 'Save' }).click();
    expect(await errorAt(change, 'Public name')).toMatch(/\S/);
    await change.getByLabel('Public name').fill('Alice B.');
    await change.getByLabel('Incoming payments need approval').check();
    expect(await saved(change)).toBe(`Changed ${s.openPaymentsUrl}/alice: name: Alice → Alice B.; approval: no → yes`);
    await expect.poll(() => row.textContent(), PAGE_WAIT).toContain('Alice B.');
    expect((await list('/wallet-addresses'))[0]).toMatchObject({ publicName: 'Alice B.', approvalRequired: true });
  });

  it('create a peer and change its largest packet, and push a rate', async () => {
    await open('peers');
    await page.getByRole('button', { name: 'New peer' }).click();
    const create = dialog('New peer');
    await create.getByLabel('ILP address').fill('not an ilp address');
    await create.getByLabel('Asset code').fill('USD');
    await create.getByLabel('Tokens it sends').fill('node-b-to-node-a-token-0123');
    await create.getByLabel('Token we send').fill('short');
    await create.getByLabel('Its connector').fill('http://localhost:4004/ilp');
    await create.getByRole('button', { name: 'Save' }).click();
    expect(await errorAt(create, 'ILP address')).toContain('must be an ILP address');
    expect(await errorAt(create, 'Token we send')).toContain('at least 16 characters');
    await create.getByLabel('ILP address').fill('test.node-b');
    await create.getByLabel('Token we send').fill('node-a-to-node-b-token-0123');
    await create.getByLabel('Name').fill('Node B');
    expect(await saved(create)).toBe('Created Node B (USD)');
    const row = page.locator('table[aria-label="Peers"] tr', { hasText: 'test.node-b' });
    await row.getByRole('button', { name: 'Change' }).click();
    const change = dialog('Change Node B');
    await change.getByLabel('Largest packet').fill('5.00');
    expect(await saved(change)).toBe('Changed Node B: largest packet: – → 5.00');
    await expect.poll(() => row.textContent(), PAGE_WAIT).toContain('5.00');
    const [peer] = await list('/peers');
    expect(peer.maxPacketAmount).toBe('500');

    await open('rates');
    await page.getByRole('button', { name: 'Push a rate' }).click();
    const push = dialog('Push a rate');
    await push.getByLabel('From').fill('USD');
    await push.getByLabel('To').fill('EUR');
    await push.getByLabel('Rate', { exact: true }).fill('nine tenths');
    await push.getByRole('button', { name: 'Save' }).click();
    expect(await errorAt(push, 'Rate')).toMatch(/number/);
    await push.getByLabel('Rate', { exact: true }).fill('0.9');
    await push.getByLabel('Peer id').fill(peer.id);
    expect(await saved(push)).toMatch(new RegExp(`^Pushed USD → EUR at 0.9 for peer ${peer.id}, until `));
    expect(await ok(s.admin('GET', `/rates?sourceAssetCode=USD&destinationAssetCode=EUR&peerId=${peer.id}`), 200)).toMatchObject({
      rate: 0.9,
      origin: 'pushed',
    });
  });
});
