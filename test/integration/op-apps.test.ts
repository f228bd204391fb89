import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken, isPendingGrant } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../infra/local/emulators/emulators';
import { startFsp } from '../../infra/local/fsp/fsp';
import { finishHash } from '../../infra/local/fsp/idp';
import { LOCAL_IDP_SECRET } from '../../infra/local/start/defaults';
import { consentInBrowser } from '../browser/consent';
import { type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ok, waitFor } from '../harness/world';
import { TEST_WEBHOOK_SECRET } from '../servers/webhook-receiver';

// The Open Payments specification's "send a payment" flow, as an app runs it with the official
// client, across two nodes of ours: the incoming payment on Node B, the quote and the outgoing
// payment on Node A, and the wallet owner's consent given in a real browser (Debian's Chromium) on
// A's FSP simulator's consent page. A's simulator funds the payment, as it funds any; A sends it
// over Interledger.
const ROOT = join(import.meta.dirname, '../..');
const ADMIN_SECRET = 'op-apps-admin-secret-0123456789';
let a: TestStack;
let b: OtherNode;
let fsp: Awaited<ReturnType<typeof startFsp>>;
const fspLog: string[] = [];
const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });

beforeAll(async () => {
  const fspPort = await freePort();
  [a, b] = await Promise.all([
    startTestStack({
      ADMIN_API_SECRET: ADMIN_SECRET,
      EXCHANGE_RATES_URL: '',
      ILP_ADDRESS: 'test.node-a',
      WEBHOOK_URL: `http://localhost:${fspPort}/webhooks`,
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      IDP_CONSENT_URL: `http://localhost:${fspPort}/consent`,
    }),
    startOtherNode({ ILP_ADDRESS: 'test.node-b' }),
  ]);
  fsp = await startFsp({
    port: fspPort,
    ratesFile: join(ROOT, 'infra/local/fsp/fsp-rates.json'),
    webhookSecret: TEST_WEBHOOK_SECRET,
    adminUrl: a.adminUrl,
    adminSecret: ADMIN_SECRET,
    autoFund: true,
    authServerUrl: a.authServerUrl,
    idpSecret: LOCAL_IDP_SECRET,
    log: (line) => fspLog.push(line),
  });
  for (const node of [a, b]) await ok(node.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  const { peerOfA, peerOfB } = await peerBothWays(a, b);
  await ok(a.admin('POST', `/peers/${peerOfA.id}/liquidity`, { amount: '1000000' }), 200);
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), fsp?.stop()]);
});

describe('an app pays from Node A to Node B with the wallet owner’s consent in a browser', () => {
  it('runs the specification’s send-a-payment flow with the official client', async () => {
    const wallet = async (node: TestStack | OtherNode, name: string) =>
      ok(node.admin('POST', '/wallet-addresses', { address: `${node.openPaymentsUrl}/${name}`, assetCode: 'USD', publicName: name }));
    const [app, alice, shop] = [await wallet(a, 'budget-app'), await wallet(a, 'alice'), await wallet(b, 'shop')];
    const { privateKey } = generateKeyPairSync('ed25519');
    await ok(a.admin('POST', `/wallet-addresses/${app.id}/keys`, generateJwk({ privateKey, keyId: 'app-key' })));
    const client = await createAuthenticatedClient({ walletAddressUrl: app.address, privateKey, keyId: 'app-key', validateResponses: true });
    const [sender, receiver] = [await client.walletAddress.get({ url: alice.address }), await client.walletAddress.get({ url: shop.address })];

    // 1. On B: a grant and an incoming payment.
    const incomingGrant = await client.grant.request(
      { url: receiver.authServer },
      { access_token: { access: [{ type: 'incoming-payment', actions: ['create', 'read'], identifier: receiver.id }] } },
    );
    if (!isFinalizedGrantWithAccessToken(incomingGrant)) throw new Error('expected an incoming-payment grant at once');
    const incoming = await client.incomingPayment.create(
      { url: receiver.resourceServer, accessToken: incomingGrant.access_token.value },
      { walletAddress: receiver.id, incomingAmount: usd('2500') },
    );

    // 2. On A: a grant and a quote for it.
    const quoteGrant = await client.grant.request({ url: sender.authServer }, { access_token: { access: [{ type: 'quote', actions: ['create', 'read'] }] } });
    if (!isFinalizedGrantWithAccessToken(quoteGrant)) throw new Error('expected a quote grant at once');
    const quote = await client.quote.create(
      { url: sender.resourceServer, accessToken: quoteGrant.access_token.value },
      { walletAddress: sender.id, receiver: incoming.id, method: 'ilp' },
    );
    expect(quote).toMatchObject({ receiver: incoming.id, debitAmount: usd('2500'), receiveAmount: usd('2500') });

    // 3. On A: an interactive outgoing-payment grant, consented in the browser.
    const nonce = randomBytes(16).toString('base64url');
    const finishUri = 'http://localhost:9/budget-app/callback';
    const pending = await client.grant.request(
      { url: sender.authServer },
      {
        access_token: {
          access: [{ type: 'outgoing-payment', actions: ['create', 'read', 'list'], identifier: sender.id, limits: { debitAmount: usd('5000') } }],
        },
        interact: { start: ['redirect'], finish: { method: 'redirect', uri: finishUri, nonce } },
      },
    );
    if (!isPendingGrant(pending)) throw new Error('expected a grant pending consent');
    const { finish, consentText } = await consentInBrowser(pending.interact.redirect, 'accept', { finishUri });
    expect(consentText).toContain('budget-app');
    expect(consentText).toContain('50.00 USD');
    const interactRef = finish.searchParams.get('interact_ref')!;
    expect(finish.searchParams.get('hash')).toBe(finishHash(nonce, pending.interact.finish, interactRef, sender.authServer));
    expect(fspLog.some((line) => /consent accept/.test(line))).toBe(true);

    // 4. The grant continued: an access token.
    const granted = await client.grant.continue({ url: pending.continue.uri, accessToken: pending.continue.access_token.value }, { interact_ref: interactRef });
    if (!isFinalizedGrantWithAccessToken(granted)) throw new Error('expected an access token');
    expect(granted.access_token.access).toEqual([expect.objectContaining({ type: 'outgoing-payment', limits: { debitAmount: usd('5000') } })]);

    // 5. The outgoing payment; A's FSP funds it; it completes across the nodes.
    const accessToken = granted.access_token.value;
    const payment = await client.outgoingPayment.create({ url: sender.resourceServer, accessToken }, { walletAddress: sender.id, quoteId: quote.id });
    expect(payment).toMatchObject({ failed: false, receiver: incoming.id, grantSpentDebitAmount: usd('2500') });
    const sent = await waitFor(
      'the payment sent',
      async () => {
        const p = await client.outgoingPayment.get({ url: payment.id, accessToken });
        return p.sentAmount.value === '2500' ? p : undefined;
      },
      20_000,
    );
    expect(sent.failed).toBe(false);
    const received = await client.incomingPayment.get({ url: incoming.id, accessToken: incomingGrant.access_token.value });
    expect(received).toMatchObject({ completed: true, receivedAmount: usd('2500') });
    expect(await client.outgoingPayment.getGrantSpentAmounts({ url: sender.resourceServer, accessToken })).toMatchObject({
      spentDebitAmount: usd('2500'),
    });
    const listed = await client.outgoingPayment.list({ url: sender.resourceServer, walletAddress: sender.id, accessToken }, { first: 10 } as never);
    expect(listed.result.map((p) => p.id)).toEqual([payment.id]);
    // On A's Admin API, the same payment, with the app's grant.
    const onAdmin = await ok(a.admin('GET', `/payments/${payment.id.split('/').pop()}`), 200);
    expect(onAdmin).toMatchObject({ state: 'completed', client: app.address, grantId: expect.any(String) });
  });
});
