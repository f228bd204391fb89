import { generateKeyPairSync } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import { pay, setupPayment, startQuote } from '@interledger/pay';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ilpOverHttp } from '../harness/ilp-over-http';
import { startTestStack, type TestStack, tenantAdmin } from '../harness/stack';
import { ok, paymentIn } from '../harness/world';
import { startWebhookReceiver, type WebhookReceiver } from '../servers/webhook-receiver';

// Two tenants on one local node, each through the README's walkthrough at the same time, with its
// own secret, wallet address prefix and webhook endpoint: its assets, liquidity and wallet
// addresses, an incoming payment an app makes over Open Payments, a quote, a payment funded and
// completed. Its wallet addresses are published
// with its own Open Payments servers (/t/<id>), its webhooks reach its own endpoint signed with its
// own secret (the outbox names the tenant; the webhook sender reads its URL and secret), and its
// ledger check sums to zero over its own accounts.

let s: TestStack;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  s = await startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a' });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
  await s?.stop();
});

async function walkthrough(name: string) {
  const prefix = `${s.openPaymentsUrl}/${name}`;
  const t = await ok(s.admin('POST', '/tenants', { name, walletAddressPrefix: prefix }));
  const receiver = await startWebhookReceiver(t.webhookSecret);
  receivers.push(receiver);
  await ok(s.admin('PATCH', `/tenants/${t.id}`, { webhookUrl: receiver.url }), 200);
  const a = tenantAdmin(s.adminUrl, t.id, t.adminApiSecret);

  // 1. The FSP's setup: an asset, liquidity, two wallet addresses under its prefix.
  const usd = await ok(a('POST', '/assets', { code: 'USD', scale: 2 }));
  await ok(a('POST', `/assets/${usd.id}/liquidity`, { amount: '1000000' }), 200);
  const alice = await ok(a('POST', '/wallet-addresses', { address: `${prefix}/alice`, assetCode: 'USD', publicName: 'Alice' }));
  await ok(a('POST', '/wallet-addresses', { address: `${prefix}/bob`, assetCode: 'USD', publicName: 'Bob' }));
  const published = await fetch(`${prefix}/bob`).then((r) => r.json());
  expect(published).toMatchObject({ id: `${prefix}/bob`, authServer: `${s.authServerUrl}/t/${t.id}`, resourceServer: `${s.openPaymentsUrl}/t/${t.id}` });

  // 2. The flow: an app of Alice's (the official Open Payments client, her key) makes Bob's incoming
  // payment through the tenant's servers; Alice's quote and payment for it, funded.
  const { privateKey } = generateKeyPairSync('ed25519');
  await ok(a('POST', `/wallet-addresses/${alice.id}/keys`, generateJwk({ privateKey, keyId: 'app' })));
  const app = await createAuthenticatedClient({ walletAddressUrl: alice.address, privateKey, keyId: 'app', validateResponses: true });
  const bob = await app.walletAddress.get({ url: `${prefix}/bob` });
  const grant = await app.grant.request(
    { url: bob.authServer },
    { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'], identifier: bob.id }] } },
  );
  if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant issued at once');
  const incoming = await app.incomingPayment.create(
    { url: bob.resourceServer, accessToken: grant.access_token.value },
    { walletAddress: bob.id, incomingAmount: { value: '9200', assetCode: 'USD', assetScale: 2 } },
  );
  expect(incoming.id.startsWith(`${s.openPaymentsUrl}/t/${t.id}/incoming-payments/`)).toBe(true);
  const intent = await ok(a('GET', `/payment-intents/${incoming.id.split('/').at(-1)}`), 200);
  const quote = await ok(a('POST', '/quotes', { walletAddress: `${prefix}/alice`, receiver: incoming.id }));
  const payment = await ok(a('POST', '/payments', { walletAddress: `${prefix}/alice`, quoteId: quote.id }));
  await ok(a('POST', `/payments/${payment.id}/fund`), 200);

  // 3. Completed; the tenant's endpoint got its events, each verified with its own secret.
  await paymentIn({ admin: a }, payment.id, ['completed']);
  expect((await ok(a('GET', `/payment-intents/${intent.id}`), 200)).state).toBe('completed');
  await receiver.waitForEvent('payment.completed', (d) => d.id === payment.id);
  await receiver.waitForEvent('payment_intent.completed', (d) => d.id === intent.id);
  const read = await app.incomingPayment.get({ url: incoming.id, accessToken: grant.access_token.value });
  expect([read.completed, read.receivedAmount.value]).toEqual([true, '9200']);
  expect(receiver.deliveries.every((d) => d.verified)).toBe(true);
  expect((await ok(a('GET', '/ledger/check'), 200)).balanced).toBe(true);
  return { t, a, app, token: grant.access_token.value, bob, receiver, ids: [usd.id, intent.id, quote.id, payment.id] };
}

describe('two tenants on one node', () => {
  it('each complete the walkthrough with their own secret, prefix and webhook endpoint, and see nothing of the other', async () => {
    const [acme, globex] = await Promise.all([walkthrough('acme'), walkthrough('globex')]);
    // Each endpoint heard only of its own tenant's resources.
    for (const [mine, theirs] of [
      [acme, globex],
      [globex, acme],
    ]) {
      const heard = new Set(mine.receiver.seen.map((e) => e.data.id));
      for (const id of theirs.ids) expect(heard.has(id), id).toBe(false);
    }
    // By id or by URL, another tenant's asset and wallet address are not there, even once read
    // by their own tenant in the same container (the caches are per tenant too).
    expect((await acme.a('GET', `/assets/${globex.ids[0]}`)).status).toBe(404);
    const quoteFromOther = await s.admin('POST', '/quotes', { walletAddress: `${s.openPaymentsUrl}/globex/alice`, receiver: globex.ids[1] });
    expect([quoteFromOther.status, quoteFromOther.body.code]).toEqual([422, 'wallet_address_not_found']);
    // The operator's own lists hold none of theirs.
    const operators = (await ok(s.admin('GET', '/payments?limit=100'), 200)).items.map((p: { id: string }) => p.id);
    for (const id of [...acme.ids, ...globex.ids]) expect(operators).not.toContain(id);
    expect((await ok(s.admin('GET', '/ledger/check'), 200)).balanced).toBe(true);
  });

  it("each are paid over Interledger through their own peer, whose token reaches only that tenant's incoming payments", async () => {
    const [acme, globex] = await Promise.all([walkthrough('acme-ilp'), walkthrough('globex-ilp')]);
    // Each tenant's peer, by its own incoming token; an incoming payment of 12.34 for each.
    const setUp = async (w: typeof acme, token: string) => {
      const peer = await ok(
        w.a('POST', '/peers', {
          staticIlpAddress: `test.peer-of-${w.t.name}`,
          assetCode: 'USD',
          http: { incoming: { authTokens: [token] }, outgoing: { authToken: 'outgoing-token-0123456789', endpoint: 'http://peer.invalid/ilp' } },
        }),
      );
      await ok(w.a('POST', `/peers/${peer.id}/liquidity`, { amount: '10000' }), 200);
      const incoming = await w.app.incomingPayment.create(
        { url: w.bob.resourceServer, accessToken: w.token },
        { walletAddress: w.bob.id, incomingAmount: { value: '1234', assetCode: 'USD', assetScale: 2 } },
      );
      const read = await w.app.incomingPayment.get({ url: incoming.id, accessToken: w.token });
      const ilp = read.methods.find((m) => m.type === 'ilp')!;
      return { peer, incoming, destination: { destinationAddress: ilp.ilpAddress, sharedSecret: Buffer.from(ilp.sharedSecret, 'base64url') } };
    };
    const tokens = { acme: 'acme-peer-incoming-token-0123456789', globex: 'globex-peer-incoming-token-0123456789' };
    const [toAcme, toGlobex] = await Promise.all([setUp(acme, tokens.acme), setUp(globex, tokens.globex)]);
    expect(toAcme.destination.destinationAddress).toMatch(new RegExp(`^test\\.node-a\\.${acme.t.ilpAddressSuffix}\\.`));
    const send = async (token: string, to: typeof toAcme) => {
      const p = ilpOverHttp(s.connectorUrl, token).plugin;
      const destination = await setupPayment({ plugin: p, ...to.destination });
      const quote = await startQuote({ plugin: p, destination, amountToDeliver: 1234n, sourceAsset: { code: 'USD', scale: 2 }, prices: { USD: 1 } });
      return pay({ plugin: p, destination, quote });
    };
    // Acme's peer cannot reach Globex's incoming payment: the probe finds no way there, nothing moves.
    await expect(send(tokens.acme, toGlobex)).rejects.toBe('EstablishmentFailed'); // @interledger/pay's PaymentError: no connection to it
    expect((await ok(globex.a('GET', `/payment-intents/${toGlobex.incoming.id.split('/').at(-1)}`), 200)).receivedAmount.value).toBe('0');
    // Each through its own peer: paid in full, the peer's liquidity the less by it.
    for (const [w, to, token] of [
      [acme, toAcme, tokens.acme],
      [globex, toGlobex, tokens.globex],
    ] as const) {
      const result = await send(token, to);
      expect([result.error, result.amountDelivered]).toEqual([undefined, 1234n]);
      const intent = await ok(w.a('GET', `/payment-intents/${to.incoming.id.split('/').at(-1)}`), 200);
      expect(intent).toMatchObject({ state: 'completed', receivedAmount: { value: '1234' } });
      expect((await ok(w.a('GET', `/peers/${to.peer.id}`), 200)).liquidity.value).toBe('8766');
      expect((await ok(w.a('GET', '/ledger/check'), 200)).balanced).toBe(true);
    }
  });
});
