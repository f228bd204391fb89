import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsole } from '../../infra/local/start/console';
import { launchChromium, PAGE_WAIT, signedInPage } from '../browser/browser';
import { createFlow, ok, paymentIn, startPaymentsStack } from '../harness/world';

// How long a page may take to show an answer, on a loaded machine (a condition, polled).

// The console's payments in a browser: each payment's id on the list, a link to its own page, and
// Withdraw offered only where the payment (or intent) still holds something, its answer said.
describe('the console payments', () => {
  let env: Awaited<ReturnType<typeof startPaymentsStack>>;
  let server: Awaited<ReturnType<typeof startConsole>>;
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  beforeAll(async () => {
    env = await startPaymentsStack();
    const { s } = env;
    server = await startConsole({ port: 0, adminUrl: s.adminUrl, operators: s.operators });
    browser = await launchChromium({ width: 1280, height: 900 });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await env?.stop();
  });

  it("lists each payment's id, linked to its page, which funds it; offers Withdraw only while it holds something, and says what a withdrawal took", async () => {
    const { s, w } = env;
    const page = await signedInPage(browser, server.url, s.operators);
    // A payment to be funded from its page, and one that fails (its intent completed before it was
    // funded) and so holds its debit.
    const paid = await createFlow(s, w.alice, w.carlos, { value: '900', assetCode: 'EUR' });
    const failing = await createFlow(s, w.alice, w.bob, { value: '500', assetCode: 'USD' });
    await ok(s.admin('POST', `/payment-intents/${failing.intent.id}/complete`), 200);
    await ok(s.admin('POST', `/payments/${failing.payment.id}/fund`), 200);
    await paymentIn(s, failing.payment.id, ['failed']);

    await page.goto(`${server.url}/#/payments`);
    const row = (id: string) => page.locator(`table[aria-label="Payments"] tr[data-id="${id}"]`);
    await row(paid.payment.id).waitFor();
    await row(paid.payment.id).getByRole('link', { name: paid.payment.id }).click();
    const record = page.locator('dl[aria-label="Payment"]');
    await record.waitFor();
    expect(await record.textContent()).toContain(paid.payment.id);
    expect(await record.textContent()).toContain('funding');
    expect(await record.textContent()).toContain('9.00 EUR');
    await page.getByRole('button', { name: 'Fund' }).click();
    await page.getByRole('dialog', { name: 'Fund' }).getByRole('button', { name: 'Confirm' }).click();
    await paymentIn(s, paid.payment.id, ['completed']);
    await expect
      .poll(async () => {
        await page.getByRole('button', { name: 'Reload' }).click();
        return record.textContent();
      }, PAGE_WAIT)
      .toContain('completed');
    // Completed: it holds nothing, so nothing to withdraw (before, Withdraw was offered and took 0).
    expect(await record.textContent()).toContain('Still holds0.00 USD');
    expect(await page.getByRole('button', { name: 'Withdraw' }).count()).toBe(0);

    // The failed one holds its debit: Withdraw on its row, and its answer said.
    await page.getByRole('link', { name: 'All payments' }).click();
    await row(failing.payment.id).getByRole('button', { name: 'Withdraw' }).waitFor();
    expect(await row(paid.payment.id).getByRole('button', { name: 'Withdraw' }).count()).toBe(0);
    await row(failing.payment.id).getByRole('button', { name: 'Withdraw' }).click();
    await page.getByRole('dialog', { name: 'Withdraw' }).getByRole('button', { name: 'Confirm' }).click();
    await page.locator('.said[role="status"]', { hasText: 'Withdrew 5.00 USD to the FSP' }).waitFor();
    await expect.poll(() => row(failing.payment.id).getByRole('button', { name: 'Withdraw' }).count(), PAGE_WAIT).toBe(0);

    // An intent holds what it received until it is withdrawn: Withdraw on Carlos's, then none. A
    // withdrawal that finds nothing left (another took it meanwhile) says so.
    await page.goto(`${server.url}/#/payment-intents`);
    const intent = page.locator(`table[aria-label="Payment intents"] tr[data-id="${paid.intent.id}"]`);
    await intent.getByRole('button', { name: 'Withdraw' }).click();
    await ok(s.admin('POST', `/payment-intents/${paid.intent.id}/withdraw`), 200);
    await page.getByRole('dialog', { name: 'Withdraw' }).getByRole('button', { name: 'Confirm' }).click();
    await page.locator('.said[role="status"]', { hasText: 'Nothing withdrawn: it held nothing' }).waitFor();
    await expect.poll(() => intent.getByRole('button', { name: 'Withdraw' }).count(), PAGE_WAIT).toBe(0);
    expect(await page.locator(`table[aria-label="Payment intents"] tr[data-id="${failing.intent.id}"]`).getByRole('button', { name: 'Withdraw' }).count()).toBe(
      0,
    );
  });
});
