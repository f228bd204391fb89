import { request } from 'node:http';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators/emulators';
import { startFsp } from '../../infra/local/fsp/fsp';
import { ROOT } from '../../infra/local/start/serverless-config';
import { startTestStack, type TestStack } from '../harness/stack';
import { createFlow, ok, paymentIn, setUpWorld, type World, waitFor } from '../harness/world';
import { TEST_WEBHOOK_SECRET } from '../servers/webhook-receiver';

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
    ratesFile: join(ROOT, 'infra/local/fsp/fsp-rates.json'),
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
    expect(log).toContainEqual(expect.stringMatching(new RegExp(`^\\[fsp\\] funded payment ${payment.id} -> 200 in \\d+ ms$`)));
    // Events are delivered concurrently, so payment.completed may still be on its way.
    const events = await waitFor('payment.completed at the FSP', async () => {
      const received = (await (await fetch(`${fsp.url}/webhooks`)).json()) as Array<{ type: string; verified: boolean; data?: { id: string } }>;
      const mine = received.filter((e) => e.data?.id === payment.id);
      return mine.some((e) => e.type === 'payment.completed') ? mine : undefined;
    });
    expect(events.map((e) => e.type).sort()).toEqual(['payment.completed', 'payment.created', 'payment.funded']);
    expect(events.every((e) => e.verified === true)).toBe(true); // checked at receipt, and shown
  });

  // Issue 28, item 5: it answered 204 and then funded, so a crash between the two (or a funding that
  // failed) left the payment in funding for good, its webhook marked delivered.
  it('answers payment.created only once the payment is funded; a funding that fails is a 503, and the resend funds it', async () => {
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }));
    const quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id }));
    // Left to the test: this file's simulator does not fund it.
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id, metadata: { autoFund: false } }));
    const event = { id: `evt-${payment.id}`, type: 'payment.created', createdAt: new Date().toISOString(), data: { ...payment, metadata: null } };
    const post = (url: string, e = event) => {
      const body = JSON.stringify(e);
      const headers = { 'content-type': 'application/json', 'webhook-id': e.id, 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
      const signature = new Webhook(TEST_WEBHOOK_SECRET).sign(e.id, new Date(), body);
      return fetch(url, { method: 'POST', headers: { ...headers, 'webhook-signature': signature }, body });
    };
    const simulator = (adminUrl: string) =>
      startFsp({
        port: 0,
        ratesFile: join(ROOT, 'infra/local/fsp/fsp-rates.json'),
        webhookSecret: TEST_WEBHOOK_SECRET,
        adminUrl,
        adminSecret: ADMIN_SECRET,
        autoFund: true,
      });

    // Its Admin API out of reach: not funded, and the webhook is not acknowledged.
    const cut = await simulator(`http://localhost:${await freePort()}`);
    try {
      expect((await post(`${cut.url}/webhooks`)).status).toBe(503);
    } finally {
      await cut.stop();
    }
    expect((await s.admin('GET', `/payments/${payment.id}`)).body.state).toBe('funding');

    // Sent again, to a simulator that reaches the Admin API: funded by the time it answers.
    const fsp2 = await simulator(s.adminUrl);
    try {
      expect((await post(`${fsp2.url}/webhooks`)).status).toBe(204);
      expect((await s.admin('GET', `/payments/${payment.id}`)).body.state).not.toBe('funding');
      expect((await post(`${fsp2.url}/webhooks`)).status).toBe(200); // the same event again: handled already
      // Another event about a payment funded already: nothing left to do, acknowledged.
      expect((await post(`${fsp2.url}/webhooks`, { ...event, id: `evt2-${payment.id}` })).status).toBe(204);
      const shown = (await (await fetch(`${fsp2.url}/webhooks`)).json()) as Array<{ id: string; answered: number }>;
      expect(shown.map((e) => [e.id, e.answered])).toEqual([
        [event.id, 204],
        [`evt2-${payment.id}`, 204],
      ]);
    } finally {
      await fsp2.stop();
    }
    await paymentIn(s, payment.id, ['completed']);
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
