import { generateKeyPairSync } from 'node:crypto';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken, OpenPaymentsClientError } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { fundedPayment, ledger, ok, quotedPayment, sum } from '../harness/world';
import { startWebhookReceiver, TEST_WEBHOOK_SECRET, type WebhookReceiver } from '../servers/webhook-receiver';

// A wallet address's status: an inactive one (frozen by the FSP) refuses new intents, quotes,
// payments, fundings, grants and a peer's packets, and what is in flight stays whole. Node A (this
// file's stack) holds the wallet addresses frozen; Node B, a second node of ours peered with A, pays
// them over Interledger. Its local rules (a status another container set, none written before
// statuses, a payment funded before the freeze) are tested in memory:
// test/unit/services/wallet-address-status.test.ts.
let a: TestStack;
let b: OtherNode;
let events: WebhookReceiver;
let alice: string; // A's sender, always active
let payer: string; // B's sender
let peerOfA: { id: string };

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const check = async (node: Pick<TestStack, 'admin'>) => (await ok(node.admin('GET', '/ledger/check'), 200)).balanced;
const setStatus = (id: string, status: string) => a.admin('PATCH', `/wallet-addresses/${id}`, { status });
const newWallet = async (name: string) => ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/${name}-${Date.now()}`, assetCode: 'USD' }));
const quoted = quotedPayment;
const funded = fundedPayment;
const peerBalance = async () => (await ledger(a)).get(`PEER#${peerOfA.id}`) ?? 0n;

beforeAll(async () => {
  events = await startWebhookReceiver();
  [a, b] = await Promise.all([
    startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a', WEBHOOK_URL: events.url, WEBHOOK_SECRET: TEST_WEBHOOK_SECRET }),
    startOtherNode({ ILP_ADDRESS: 'test.node-b' }),
  ]);
  for (const node of [a, b]) await ok(node.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  alice = (await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
  payer = (await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/payer`, assetCode: 'USD' }))).address;
  let peerOfB: { id: string };
  ({ peerOfA, peerOfB } = await peerBothWays(a, b));
  await ok(a.admin('POST', `/peers/${peerOfA.id}/liquidity`, { amount: '1000000' }), 200);
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await events?.stop();
});

describe('PATCH /wallet-addresses/{id} status', () => {
  it('is active when new, changes both ways with a wallet_address.updated each time, and refuses a bad value changing nothing', async () => {
    const wallet = await newWallet('status');
    expect(wallet.status).toBe('active');
    expect(await ok(setStatus(wallet.id, 'inactive'), 200)).toMatchObject({ id: wallet.id, status: 'inactive' });
    expect((await ok(a.admin('GET', `/wallet-addresses/${wallet.id}`), 200)).status).toBe('inactive');
    expect((await ok(a.admin('GET', `/wallet-addresses?address=${encodeURIComponent(wallet.address)}`), 200)).status).toBe('inactive');
    const frozen = await events.waitForEvent('wallet_address.updated', (d) => d.id === wallet.id && d.status === 'inactive');
    expect(frozen.data).toMatchObject({ id: wallet.id, address: wallet.address, status: 'inactive', approvalRequired: false });

    for (const status of ['frozen', '', null, true, 'ACTIVE']) {
      const refused = await a.admin('PATCH', `/wallet-addresses/${wallet.id}`, { status });
      expect(refused.status, JSON.stringify(status)).toBe(400);
      expect(refused.body.errors).toEqual([expect.objectContaining({ field: 'status' })]);
    }
    expect((await ok(a.admin('GET', `/wallet-addresses/${wallet.id}`), 200)).status).toBe('inactive');

    expect((await ok(setStatus(wallet.id, 'active'), 200)).status).toBe('active');
    await events.waitForEvent('wallet_address.updated', (d) => d.id === wallet.id && d.status === 'active');
    expect((await ok(a.admin('POST', '/payment-intents', { walletAddress: wallet.address }))).state).toBe('pending');
  });

  it('may be given at creation', async () => {
    const wallet = await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/born-frozen`, assetCode: 'USD', status: 'inactive' }));
    expect(wallet.status).toBe('inactive');
    expect((await a.admin('POST', '/payment-intents', { walletAddress: wallet.address })).body).toMatchObject({ status: 422, code: 'wallet_address_inactive' });
    expect((await a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/bad-status`, assetCode: 'USD', status: 'on' })).status).toBe(400);
    expect((await a.admin('GET', `/wallet-addresses?address=${encodeURIComponent(`${a.openPaymentsUrl}/bad-status`)}`)).status).toBe(404);
  });
});

describe('an inactive wallet address', () => {
  it('refuses new intents, quotes, payments and fundings on the Admin API (422 wallet_address_inactive), and takes them again once active', async () => {
    const shop = await newWallet('shop');
    const sender = await newWallet('sender');
    const intent = await ok(a.admin('POST', '/payment-intents', { walletAddress: alice }));
    const quote = await ok(a.admin('POST', '/quotes', { walletAddress: sender.address, receiver: intent.id, receiveAmount: usd('100') }));
    const unfunded = await quoted(a, sender.address, intent.id, '100');

    await ok(setStatus(shop.id, 'inactive'), 200);
    await ok(setStatus(sender.id, 'inactive'), 200);
    const refusals = [
      await a.admin('POST', '/payment-intents', { walletAddress: shop.address }),
      await a.admin('POST', '/quotes', { walletAddress: sender.address, receiver: intent.id, receiveAmount: usd('100') }),
      await a.admin('POST', '/payments', { walletAddress: sender.address, quoteId: quote.id }),
      await a.admin('POST', `/payments/${unfunded.id}/fund`),
    ];
    for (const r of refusals) {
      expect(r.headers.get('content-type')).toMatch(/application\/problem\+json/);
      expect(r.body).toMatchObject({ status: 422, code: 'wallet_address_inactive' });
    }
    // Nothing changed: the quote is still free, the payment still unfunded.
    expect((await ok(a.admin('GET', `/payments/${unfunded.id}`), 200)).state).toBe('funding');

    await ok(setStatus(sender.id, 'active'), 200);
    expect((await ok(a.admin('POST', '/payments', { walletAddress: sender.address, quoteId: quote.id }))).state).toBe('funding');
    expect((await funded(a, unfunded)).state).toBe('completed');
    expect(await check(a)).toBe(true);
  });

  it('refuses a peer’s packets and a local payment to its open intent, holding and losing nothing; made active, the intent takes them', async () => {
    const shop = await newWallet('frozen-shop');
    const intent = await ok(a.admin('POST', '/payment-intents', { walletAddress: shop.address, incomingAmount: usd('1000') }));
    const local = await quoted(a, alice, intent.id, '300');
    const remote = await quoted(b, payer, intent.url, '300');
    await ok(setStatus(shop.id, 'inactive'), 200);
    const peerBefore = await peerBalance();

    expect(await funded(a, local)).toMatchObject({ state: 'failed', failureReason: 'wallet_address_inactive' });
    expect((await funded(b, remote)).state).toBe('failed');
    expect((await ok(a.admin('GET', `/payment-intents/${intent.id}`), 200)).receivedAmount).toEqual(usd('0'));
    expect(await peerBalance()).toBe(peerBefore);
    // Each failed payment gives back all it was debited.
    expect((await ok(a.admin('POST', `/payments/${local.id}/withdraw`), 200)).withdrawnAmount).toEqual(local.debitAmount);
    expect((await ok(b.admin('POST', `/payments/${remote.id}/withdraw`), 200)).withdrawnAmount).toEqual(remote.debitAmount);

    await ok(setStatus(shop.id, 'active'), 200);
    expect((await funded(a, await quoted(a, alice, intent.id, '300'))).state).toBe('completed');
    expect((await funded(b, await quoted(b, payer, intent.url, '700'))).state).toBe('completed');
    expect(await ok(a.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({ state: 'completed', receivedAmount: usd('1000') });
    for (const node of [a, b]) expect(await check(node)).toBe(true);
    expect(sum(await ledger(a))).toBe(0n);
  });

  it('on Open Payments: its document stays readable, grants for it are refused, and a grant issued before cannot create an incoming payment', async () => {
    const wallet = await newWallet('op');
    const { privateKey } = generateKeyPairSync('ed25519');
    await ok(a.admin('POST', `/wallet-addresses/${wallet.id}/keys`, generateJwk({ privateKey, keyId: 'op-key' })));
    const client = await createAuthenticatedClient({ walletAddressUrl: wallet.address, privateKey, keyId: 'op-key', validateResponses: true });
    const access = [{ type: 'incoming-payment' as const, actions: ['create' as const, 'read' as const], identifier: wallet.address }];
    const before = await client.grant.request({ url: a.authServerUrl }, { access_token: { access } } as never);
    if (!isFinalizedGrantWithAccessToken(before)) throw new Error('expected a grant issued at once');

    await ok(setStatus(wallet.id, 'inactive'), 200);
    expect(await client.walletAddress.get({ url: wallet.address })).toMatchObject({ id: wallet.address, assetCode: 'USD' });
    const refusedGrant = await client.grant.request({ url: a.authServerUrl }, { access_token: { access } } as never).catch((e) => e);
    expect(refusedGrant).toBeInstanceOf(OpenPaymentsClientError);
    expect(refusedGrant).toMatchObject({ status: 403, code: 'request_denied', description: expect.stringContaining('inactive') });
    const refusedPayment = await client.incomingPayment
      .create({ url: a.openPaymentsUrl, accessToken: before.access_token.value }, { walletAddress: wallet.address, incomingAmount: usd('100') })
      .catch((e) => e);
    // 422 on the Admin API; Open Payments, which has no 422, answers 400.
    expect(refusedPayment).toMatchObject({ status: 400 });
    expect(refusedPayment.code).toBe('wallet_address_inactive');
    expect((await ok(a.admin('GET', `/payment-intents?walletAddress=${encodeURIComponent(wallet.address)}`), 200)).items).toEqual([]);
  });
});
