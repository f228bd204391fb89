import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { ok, paymentIn, setUpWorld, type World } from '../harness/world';
import { startWebhookReceiver, type WebhookReceiver } from '../servers/webhook-receiver';

// Webhooks in Rafiki's dialect (docs/webhooks.md), as an FSP built on Rafiki's receives them: the
// operator's by WEBHOOK_DIALECT, a tenant's by its own webhookDialect. Real receivers verify each
// Rafiki-Signature with their own HMAC over the canonical JSON (test/servers/webhook-receiver.ts).
const RAFIKI_SECRET = 'iyIgCprjb9uL8wFckR+pLEkJWMB7FJhgkvqhTQR/964='; // Rafiki's test SIGNATURE_SECRET: a plain string

let s: TestStack;
let w: World;
let ase: WebhookReceiver; // the operator's, like Rafiki's mock account servicing entity
const others: WebhookReceiver[] = [];

beforeAll(async () => {
  ase = await startWebhookReceiver(RAFIKI_SECRET, 'rafiki');
  s = await startTestStack({ EXCHANGE_RATES_URL: '', WEBHOOK_URL: ase.url, WEBHOOK_SECRET: RAFIKI_SECRET, WEBHOOK_DIALECT: 'rafiki' });
  w = await setUpWorld(s);
});
afterAll(async () => {
  await s?.stop();
  await ase?.stop();
  for (const r of others) await r.stop();
});

const walletId = async (url: string) => (await ok(s.admin('GET', `/wallet-addresses?address=${encodeURIComponent(url)}`), 200)).id as string;
const deliveriesAbout = (r: WebhookReceiver, ...ids: string[]) => r.deliveries.filter((d) => ids.includes(d.event.data.id));

describe("webhooks in Rafiki's dialect", () => {
  it("drive a payment as Rafiki's do: the FSP funds on outgoing_payment.created, by the ids the data names", async () => {
    // As Rafiki's mock ASE: 200 at once; on outgoing_payment.created, fund the payment data.id names.
    ase.respondWith((d) => {
      if (d.event.type === 'outgoing_payment.created') void s.admin('POST', `/payments/${d.event.data.id}/fund`);
      return 200;
    });
    const intent = await ok(s.admin('POST', '/payment-intents', { walletAddress: w.bob, incomingAmount: { value: '500', assetCode: 'USD', assetScale: 2 } }));
    const created = await ase.waitForEvent('incoming_payment.created', (d) => d.id === intent.url.split('/').pop());
    const quote = await ok(s.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.url }));
    const payment = await ok(s.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    await paymentIn(s, payment.id, ['completed']); // nobody but the webhook receiver funded it
    await ase.waitForEvent('outgoing_payment.completed', (d) => d.id === payment.id);
    await ase.waitForEvent('incoming_payment.completed', (d) => d.id === intent.id);

    const mine = deliveriesAbout(ase, payment.id, intent.id);
    expect(mine.map((d) => d.event.type).sort()).toEqual(
      ['incoming_payment.completed', 'incoming_payment.created', 'outgoing_payment.completed', 'outgoing_payment.created', 'outgoing_payment.funded'].sort(),
    );
    for (const d of mine) {
      expect(d.verified, d.raw).toBe(true);
      expect(Object.keys(d.event)).toEqual(['id', 'type', 'data']);
      expect(d.headers['content-type']).toBe('application/json');
      expect(d.headers).not.toHaveProperty('webhook-signature');
    }
    const [alice, bob] = [await walletId(w.alice), await walletId(w.bob)];
    expect(created.data).toMatchObject({
      id: intent.id,
      walletAddressId: bob,
      completed: false,
      incomingAmount: { value: '500', assetCode: 'USD', assetScale: 2 },
    });
    const outgoing = (type: string) => mine.find((d) => d.event.type === type)!.event.data;
    expect(outgoing('outgoing_payment.created')).toMatchObject({
      id: payment.id,
      walletAddressId: alice,
      state: 'FUNDING',
      debitAmount: { value: quote.debitAmount.value, assetCode: 'USD', assetScale: 2 },
      receiver: intent.url,
      balance: '0',
    });
    expect(outgoing('outgoing_payment.funded')).toMatchObject({ id: payment.id, state: 'SENDING', balance: quote.debitAmount.value });
    expect(outgoing('outgoing_payment.completed')).toMatchObject({ id: payment.id, state: 'COMPLETED', sentAmount: quote.debitAmount });
    expect(outgoing('incoming_payment.completed')).toMatchObject({ id: intent.id, completed: true, receivedAmount: { value: '500' } });
    // Webhook records keep our names; the FSP sees Rafiki's.
    expect((await ok(s.admin('GET', `/webhook-events/${created.id}`), 200)).type).toBe('payment_intent.created');
  });

  it('tell of an unknown wallet address with wallet_address.not_found and its URL as published', async () => {
    const url = `${s.openPaymentsUrl}/nobody-${Date.now()}`;
    expect((await fetch(url, { headers: { accept: 'application/json' } })).status).toBe(404);
    const told = await ase.waitForEvent('wallet_address.not_found', (d) => d.walletAddressUrl === url);
    expect(told.data).toEqual({ walletAddressUrl: url });
    expect(ase.deliveries.find((d) => d.event.id === told.id)!.verified).toBe(true);
  });

  it("follow a tenant's own choice: standard while it says so, Rafiki's with its own secret once it chooses it", async () => {
    const walletAddressPrefix = `${s.openPaymentsUrl}/rafiki-tenant`;
    const t = await ok(s.admin('POST', '/tenants', { name: 'Moving', walletAddressPrefix, webhookDialect: 'standard' }));
    expect(t.webhookDialect).toBe('standard');
    const standard = await startWebhookReceiver(t.webhookSecret);
    const rafiki = await startWebhookReceiver(t.webhookSecret, 'rafiki');
    others.push(standard, rafiki);
    await ok(s.admin('PATCH', `/tenants/${t.id}`, { webhookUrl: standard.url }), 200);
    const tenant = tenantAdmin(s.adminUrl, t.id, t.adminApiSecret);
    await ok(tenant('POST', '/assets', { code: 'USD', scale: 2 }));
    const wallet = await ok(tenant('POST', '/wallet-addresses', { address: `${walletAddressPrefix}/shop`, assetCode: 'USD' }));
    const before = await ok(tenant('POST', '/payment-intents', { walletAddress: wallet.address }));
    const ours = await standard.waitForEvent('payment_intent.created', (d) => d.id === before.id);
    expect(standard.deliveries.find((d) => d.event.id === ours.id)!.verified).toBe(true);

    const chosen = await ok(s.admin('PATCH', `/tenants/${t.id}`, { webhookUrl: rafiki.url, webhookDialect: 'rafiki' }), 200);
    expect(chosen.webhookDialect).toBe('rafiki');
    expect((await ok(s.admin('GET', `/tenants/${t.id}`), 200)).webhookDialect).toBe('rafiki');
    const after = await ok(tenant('POST', '/payment-intents', { walletAddress: wallet.address }));
    const theirs = await rafiki.waitForEvent('incoming_payment.created', (d) => d.id === after.id);
    expect(theirs.data).toMatchObject({ id: after.id, walletAddressId: wallet.id, completed: false });
    const delivery = rafiki.deliveries.find((d) => d.event.id === theirs.id)!;
    expect(delivery.verified, delivery.headers['rafiki-signature']).toBe(true);
    expect(ase.deliveries.some((d) => d.event.data.id === after.id)).toBe(false); // the tenant's own, not the operator's

    // null: the deployment's dialect (Rafiki's here), shown as null.
    expect((await ok(s.admin('PATCH', `/tenants/${t.id}`, { webhookDialect: null }), 200)).webhookDialect).toBeNull();
    expect((await ok(s.admin('GET', '/tenants/operator'), 200)).webhookDialect).toBe('rafiki');
  });
});
