import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../infra/local/start/console';
import { DEFAULT_PORTS } from '../../infra/local/start/defaults';
import { launchChromium, PAGE_WAIT, signedInPage } from '../browser/browser';
import { DOCS_IMAGES, screenshot } from '../browser/screenshots';
import { createFlow, ok, paymentIn, startPaymentsStack } from '../harness/world';

// The console's search box in a browser (Debian's Chromium): an operator finds a payment by its id,
// opens it, follows its link to the intent it paid and back; finds an intent by its id and a wallet
// address by its URL; is told plainly when nothing has an id. GET /search behind it, on the stack.
// The pages are photographed (for the docs, `npm run docs:images`, on Node A's default ports).
describe('the console search', () => {
  let env: Awaited<ReturnType<typeof startPaymentsStack>>;
  let server: Awaited<ReturnType<typeof startConsole>>;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  beforeAll(async () => {
    const ports = DOCS_IMAGES ? { admin: DEFAULT_PORTS.admin, openPayments: DEFAULT_PORTS.openPayments, authServer: DEFAULT_PORTS.authServer } : undefined;
    env = await startPaymentsStack({ stack: { ports } });
    server = await startConsole({ port: DOCS_IMAGES ? DEFAULT_PORTS.console : 0, adminUrl: env.s.adminUrl, operators: env.s.operators });
    browser = await launchChromium({ width: 1280, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await env?.stop();
  });

  it('finds a payment, an intent and a wallet address by id or URL from the header, and links a payment to its intent and back', async () => {
    const { s, w } = env;
    const { payment, intent } = await createFlow(s, w.alice, w.carlos, { value: '900', assetCode: 'EUR' });
    const page = await signedInPage(browser, server.url, s.operators);
    const find = async (q: string) => {
      const box = page.getByRole('searchbox', { name: 'Find by id or URL' });
      await box.fill(q);
      await box.press('Enter');
    };
    const paymentRecord = page.locator('dl[aria-label="Payment"]');
    const intentRecord = page.locator('dl[aria-label="Payment intent"]');

    // The payment, by its id: its page. Funded from it: the Fund dialog closes with Close, never
    // a second "Cancel" beside the payment's own Cancel payment.
    await find(payment.id);
    await paymentRecord.waitFor();
    expect(page.url()).toContain(`#/payments/${payment.id}`);
    await page.getByRole('button', { name: 'Fund' }).click();
    const fund = page.getByRole('dialog', { name: 'Fund' });
    expect(await fund.getByRole('button').allTextContents()).toEqual(['Close', 'Confirm']);
    await fund.getByRole('button', { name: 'Close' }).click();
    await fund.waitFor({ state: 'detached' });
    expect(await page.getByRole('button', { name: 'Cancel payment' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Fund' }).click();
    await fund.getByRole('button', { name: 'Confirm' }).click();
    await paymentIn(s, payment.id, ['completed']);
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Reload' }).click();
        return paymentRecord.textContent();
      }, PAGE_WAIT)
      .toContain('completed');
    // Its links: its quote, its sender, its trace, webhooks, audit events and transfers.
    for (const [name, href] of [
      [payment.quoteId, `#/quotes/${payment.quoteId}`],
      [w.alice, `#/find/${encodeURIComponent(w.alice)}`],
      ['Trace', `#/traces/payment/${payment.id}`],
      ['Webhook events', `#/webhook-events/for/${payment.id}`],
      ['Audit events', `#/audit/for/${payment.id}`],
      ['Transfers', `#/transfers/payment:${payment.id}`],
    ]) {
      expect(await page.locator('main').getByRole('link', { name, exact: true }).getAttribute('href'), name).toBe(href);
    }
    await screenshot(page, 'payment.png');

    // To the intent it paid, which names the payment among what paid it, and back.
    await paymentRecord.getByRole('link', { name: 'Its payment intent' }).click();
    await intentRecord.waitFor();
    expect(await intentRecord.textContent()).toContain(intent.id);
    const paidBy = page.getByRole('list', { name: 'Paid by' }).getByRole('link', { name: `payment ${payment.id}` });
    await paidBy.waitFor();
    await screenshot(page, 'payment-intent.png');
    await paidBy.click();
    await paymentRecord.waitFor();
    expect(await paymentRecord.textContent()).toContain(payment.id);

    // The intent by its id; the sender's wallet address by its URL, with the payments it sent.
    await find(intent.id);
    await intentRecord.waitFor();
    expect(page.url()).toContain(`#/payment-intents/${intent.id}`);
    await find(w.alice);
    const wallet = page.locator('dl[aria-label="Wallet address"]');
    await wallet.waitFor();
    expect(await wallet.textContent()).toContain(w.alice);
    await page.locator(`table[aria-label="Payments"] tr[data-id="${payment.id}"]`).waitFor();
    await screenshot(page, 'wallet-address.png');

    // An id nothing has: said so.
    const unknown = '00000000-0000-4000-8000-000000000000';
    await find(unknown);
    await page
      .getByRole('status')
      .filter({ hasText: `Nothing here has the id or URL ${unknown}` })
      .waitFor();

    // The audit trail (the funding is in it) fits 1280 px: nothing wider than the window.
    await ok(s.admin('GET', '/audit-events'), 200);
    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await page.locator('table[aria-label="Audit events"] tbody tr', { hasText: 'POST /payments/{id}/fund' }).first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  });
});
