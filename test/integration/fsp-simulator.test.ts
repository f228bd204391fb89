import { request } from 'node:http';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators';
import { startFsp } from '../../infra/local/fsp';
import { ROOT } from '../../infra/local/serverless-config';
import { startTestStack, type TestStack } from '../stack';
import { TEST_WEBHOOK_SECRET } from '../webhook-receiver';
import { createFlow, paymentIn, setUpWorld, type World, waitFor } from '../world';

// The local FSP that `npm start` runs: its rates drive quotes, and its webhook endpoint verifies
// signatures and funds each payment it is told about, so the flow completes on its own.
let s: TestStack;
let w: World;
let fsp: Awaited<ReturnType<typeof startFsp>>;
const log: string[] = [];
const ADMIN_SECRET = 'fsp-test-admin-secret-123456';

beforeAll(async () => {
  // The FSP's port first (the stack sends webhooks there), then the FSP, told the Admin API's URL.
  const fspPort = await freePort();
  s = await startTestStack({
    ADMIN_API_SECRET: ADMIN_SECRET,
    EXCHANGE_RATES_URL: `http://localhost:${fspPort}/rates`,
    WEBHOOK_URL: `http://localhost:${fspPort}/webhooks`,
    WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  });
  fsp = await startFsp({
    port: fspPort,
    ratesFile: join(ROOT, 'infra/local/fsp-rates.json'),
    webhookSecret: TEST_WEBHOOK_SECRET,
    adminUrl: s.adminUrl,
    adminSecret: ADMIN_SECRET,
    autoFund: true,
    log: (line) => log.push(line),
  });
  w = await setUpWorld(s);
});
afterAll(async () => {
  await s.stop();
  await fsp.stop();
});

describe('local FSP simulator', () => {
  it('serves rates from its file, and quotes use them', async () => {
    const res = await fetch(`${fsp.url}/rates?base=USD`);
    expect(await res.json()).toMatchObject({ base: 'USD', rates: { EUR: 0.92 } });
    expect((await s.admin('GET', '/rates?sourceAssetCode=USD&destinationAssetCode=EUR')).body).toMatchObject({ rate: 0.92, origin: 'pulled' });
    expect((await fetch(`${fsp.url}/rates?base=XXX`)).status).toBe(404);
  });

  it('funds the payment it is told about, so the flow completes on its own', async () => {
    const { payment, intent } = await createFlow(s, w.alice, w.carlos, { value: '920', assetCode: 'EUR' });
    expect(payment.debitAmount.value).toBe('1000'); // 9.20 EUR at the file's 0.92
    const done = await paymentIn(s, payment.id, ['completed']);
    expect(done.sentAmount.value).toBe('1000');
    expect((await s.admin('GET', `/payment-intents/${intent.id}`)).body.state).toBe('completed');
    expect(log).toContain(`[fsp] funded payment ${payment.id} -> 200`);
    // Events are delivered concurrently, so payment.completed may still be on its way.
    const events = await waitFor('payment.completed at the FSP', async () => {
      const received = (await (await fetch(`${fsp.url}/webhooks`)).json()) as Array<{ type: string; verified: boolean; data?: { id: string } }>;
      const mine = received.filter((e) => e.data?.id === payment.id);
      return mine.some((e) => e.type === 'payment.completed') ? mine : undefined;
    });
    expect(events.map((e) => e.type).sort()).toEqual(['payment.completed', 'payment.created', 'payment.funded']);
    expect(events.every((e) => e.verified === true)).toBe(true); // checked at receipt, and shown
  });

  it('rejects a webhook with a bad signature with 401 and logs it', async () => {
    const body = JSON.stringify({ id: 'evt', type: 'payment.created', createdAt: new Date().toISOString(), data: { id: 'x' } });
    const headers = { 'webhook-id': 'evt', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' };
    const res = await fetch(`${fsp.url}/webhooks`, { method: 'POST', headers, body });
    expect(res.status).toBe(401);
    expect(log.some((l) => l.includes('REJECTED webhook evt'))).toBe(true);
    const shown = (await (await fetch(`${fsp.url}/webhooks`)).json()) as Array<{ id: string; verified: boolean; error?: string }>;
    expect(shown.find((e) => e.id === 'evt')).toMatchObject({ verified: false, error: expect.stringMatching(/\S/) });
    const signed = new Webhook(TEST_WEBHOOK_SECRET).sign('evt2', new Date(), body);
    expect(
      (await fetch(`${fsp.url}/webhooks`, { method: 'POST', headers: { ...headers, 'webhook-id': 'evt2', 'webhook-signature': signed }, body: `${body} ` }))
        .status,
    ).toBe(401);
  });

  it('answers a request target that is no URL with 400, and goes on serving', async () => {
    const status = await new Promise<number | undefined>((done, fail) =>
      request(fsp.url, { path: '//[' }, (res) => {
        res.resume();
        done(res.statusCode);
      })
        .on('error', fail)
        .end(),
    );
    expect(status).toBe(400);
    expect((await fetch(`${fsp.url}/rates?base=USD`)).status).toBe(200);
  });
});
