import { generateKeyPairSync } from 'node:crypto';
import { UpdateItemCommand } from '@aws-sdk/client-dynamodb';
import { generateJwk } from '@interledger/http-signature-utils';
import { createAuthenticatedClient, isFinalizedGrantWithAccessToken } from '@interledger/open-payments';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { fundedPayment, ledger, ok, quotedPayment, sum } from '../harness/world';
import { startWebhookReceiver, TEST_WEBHOOK_SECRET, type WebhookReceiver } from '../servers/webhook-receiver';

// Incoming payments held for the FSP's approval, and intents closed short of their amount (issue 31
// item 2). Node A (this file's stack, its webhooks to a receiver of the test's, returning what a
// short intent's local payments paid) holds the intents; its own wallet address pays them locally,
// and Node B, a second node of ours peered with A (keeping what a short intent received), pays them
// over Interledger, and the other way round. Their local rules (an approval racing a cancellation,
// the expirer returning a short intent's payments, a withdrawal before the close) are tested in
// memory: test/unit/services/approval.test.ts.
let a: TestStack;
let b: OtherNode;
let events: WebhookReceiver;
let alice: string; // A's sender
let held: { id: string; address: string }; // A's wallet address that requires approval
let payer: string; // B's sender
let peerOfA: { id: string };
let peerOfB: { id: string };

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const check = async (node: Pick<TestStack, 'admin'>) => (await ok(node.admin('GET', '/ledger/check'), 200)).balanced;

beforeAll(async () => {
  events = await startWebhookReceiver();
  [a, b] = await Promise.all([
    startTestStack({
      EXCHANGE_RATES_URL: '',
      ILP_ADDRESS: 'test.node-a',
      WEBHOOK_URL: events.url,
      WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
      INCOMING_PARTIAL_PAYMENTS: 'return',
    }),
    // B holds every new intent unless its wallet address says otherwise.
    startOtherNode({ ILP_ADDRESS: 'test.node-b', INCOMING_APPROVAL_REQUIRED: 'true' }),
  ]);
  for (const node of [a, b]) await ok(node.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  alice = (await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
  held = await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/held`, assetCode: 'USD', approvalRequired: true }));
  payer = (await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/payer`, assetCode: 'USD', approvalRequired: false }))).address;
  ({ peerOfA, peerOfB } = await peerBothWays(a, b));
  await ok(a.admin('POST', `/peers/${peerOfA.id}/liquidity`, { amount: '1000000' }), 200);
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await events?.stop();
});

const heldIntent = async (value?: string) => {
  const intent = await ok(a.admin('POST', '/payment-intents', { walletAddress: held.address, ...(value && { incomingAmount: usd(value) }) }));
  expect(intent.state).toBe('pending_approval');
  return intent;
};
// A quoted payment to the intent, from A's alice (local) or B's payer (over Interledger), not yet
// funded; and one funded, once it ended.
const quoted = quotedPayment;
const funded = fundedPayment;
const peerBalance = async () => (await ledger(a)).get(`PEER#${peerOfA.id}`) ?? 0n;

describe('a payment intent held for approval', () => {
  it('refuses a local payment and a peer’s packets until approved, then completes; the failed payments’ money is all withdrawable', async () => {
    const intent = await heldIntent('1000');
    const created = await events.waitForEvent('payment_intent.created', (d) => d.id === intent.id);
    expect(created).toMatchObject({ data: { state: 'pending_approval', incomingAmount: usd('1000') } });
    const peerBefore = await peerBalance();

    const local = await funded(a, await quoted(a, alice, intent.id, '300'));
    expect(local).toMatchObject({ state: 'failed', failureReason: 'payment_intent_pending_approval' });
    const remote = await funded(b, await quoted(b, payer, intent.url, '300'));
    expect(remote.state).toBe('failed');
    // Nothing arrived, nothing is held on A for B's packets, and each failed payment gives back all it was debited.
    expect((await ok(a.admin('GET', `/payment-intents/${intent.id}`), 200)).receivedAmount).toEqual(usd('0'));
    expect(await peerBalance()).toBe(peerBefore);
    expect((await ok(a.admin('POST', `/payments/${local.id}/withdraw`), 200)).withdrawnAmount).toEqual(local.debitAmount);
    expect((await ok(b.admin('POST', `/payments/${remote.id}/withdraw`), 200)).withdrawnAmount).toEqual(remote.debitAmount);

    const approved = await ok(a.admin('POST', `/payment-intents/${intent.id}/approve`), 200);
    expect(approved).toMatchObject({ state: 'pending', approvedAt: expect.any(String) });
    expect((await events.waitForEvent('payment_intent.approved', (d) => d.id === intent.id)).data.state).toBe('pending');
    expect((await a.admin('POST', `/payment-intents/${intent.id}/approve`)).body).toMatchObject({ status: 409, code: 'invalid_state' });

    expect((await funded(a, await quoted(a, alice, intent.id, '300'))).state).toBe('completed');
    expect((await funded(b, await quoted(b, payer, intent.url, '700'))).state).toBe('completed');
    expect(await ok(a.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({ state: 'completed', receivedAmount: usd('1000') });
    for (const node of [a, b]) expect(await check(node)).toBe(true);
    expect(sum(await ledger(a))).toBe(0n);
  });

  it('cancelled, tells the FSP its reason and refuses every payment, even one quoted while it was held', async () => {
    const intent = await heldIntent('500');
    const [local, remote] = await Promise.all([quoted(a, alice, intent.id, '200'), quoted(b, payer, intent.url, '200')]);
    for (const body of [{}, { reason: '' }, { reason: '  ' }, { reason: 'x'.repeat(501) }, { reason: 7 }]) {
      expect((await a.admin('POST', `/payment-intents/${intent.id}/cancel`, body)).status, JSON.stringify(body)).toBe(400);
    }
    const reason = 'The payer is on a sanctions list';
    expect(await ok(a.admin('POST', `/payment-intents/${intent.id}/cancel`, { reason }), 200)).toMatchObject({
      state: 'cancelled',
      cancelledAt: expect.any(String),
      cancelReason: reason,
    });
    const told = await events.waitForEvent('payment_intent.cancelled', (d) => d.id === intent.id);
    expect(told.data).toMatchObject({ state: 'cancelled', cancelReason: reason });
    for (const action of ['approve', 'cancel'])
      expect((await a.admin('POST', `/payment-intents/${intent.id}/${action}`, action === 'cancel' ? { reason } : undefined)).status).toBe(409);

    const peerBefore = await peerBalance();
    expect(await funded(a, local)).toMatchObject({ state: 'failed', failureReason: 'payment_intent_cancelled' });
    expect((await funded(b, remote)).state).toBe('failed');
    expect(await peerBalance()).toBe(peerBefore);
    // A new payment is refused at quoting, on either node.
    expect((await a.admin('POST', '/quotes', { walletAddress: alice, receiver: intent.id, receiveAmount: usd('1') })).body.code).toBe('receiver_not_open');
    expect((await b.admin('POST', '/quotes', { walletAddress: payer, receiver: intent.url, receiveAmount: usd('1') })).status).toBe(422);
    for (const node of [a, b]) expect(await check(node)).toBe(true);
  });
});

describe('approvalRequired', () => {
  it('follows the node’s INCOMING_APPROVAL_REQUIRED unless the wallet address sets it, and a change applies to the next intent', async () => {
    const own = await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/follows`, assetCode: 'USD' }));
    expect(own.approvalRequired).toBe(true); // B's default
    expect((await ok(b.admin('POST', '/payment-intents', { walletAddress: own.address }))).state).toBe('pending_approval');
    expect((await ok(b.admin('GET', `/wallet-addresses/${own.id}`), 200)).approvalRequired).toBe(true);
    expect(await ok(b.admin('PATCH', `/wallet-addresses/${own.id}`, { approvalRequired: false }), 200)).toMatchObject({
      approvalRequired: false,
      publicName: null,
    });
    expect((await ok(b.admin('POST', '/payment-intents', { walletAddress: own.address }))).state).toBe('pending');
    expect((await b.admin('PATCH', `/wallet-addresses/${own.id}`, {})).status).toBe(400);
    expect((await b.admin('PATCH', `/wallet-addresses/${own.id}`, { approvalRequired: 'yes' })).status).toBe(400);
  });

  it('holds an incoming payment an Open Payments client creates, which still offers its STREAM credentials', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    await ok(a.admin('POST', `/wallet-addresses/${held.id}/keys`, generateJwk({ privateKey, keyId: 'held-key' })));
    const client = await createAuthenticatedClient({ walletAddressUrl: held.address, privateKey, keyId: 'held-key', validateResponses: true });
    const access = [{ type: 'incoming-payment' as const, actions: ['create' as const, 'read' as const], identifier: held.address }];
    const grant = await client.grant.request({ url: a.authServerUrl }, { access_token: { access } } as never);
    if (!isFinalizedGrantWithAccessToken(grant)) throw new Error('expected a grant issued at once');
    const created = await client.incomingPayment.create(
      { url: a.openPaymentsUrl, accessToken: grant.access_token.value },
      { walletAddress: held.address, incomingAmount: usd('100') },
    );
    expect(created).toMatchObject({ completed: false, methods: [{ type: 'ilp' }] });
    const id = created.id.split('/').at(-1);
    expect((await ok(a.admin('GET', `/payment-intents/${id}`), 200)).state).toBe('pending_approval');
  });

  it('set by another container meanwhile, holds the next intent though this one had read the wallet address before', async () => {
    const wallet = await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/changed`, assetCode: 'USD' }));
    expect((await ok(a.admin('POST', '/payment-intents', { walletAddress: wallet.address }))).state).toBe('pending'); // read, and kept
    // What a PATCH served by another container writes, which this one's copy does not see.
    for (const pk of [`WAURL#${wallet.address}`, `WA#${wallet.id}`])
      await a.dynamo.send(
        new UpdateItemCommand({
          TableName: a.env.MAIN_TABLE,
          Key: { pk: { S: pk }, sk: { S: 'WA' } },
          UpdateExpression: 'SET approvalRequired = :t',
          ExpressionAttributeValues: { ':t': { BOOL: true } },
        }),
      );
    expect((await ok(a.admin('POST', '/payment-intents', { walletAddress: wallet.address }))).state).toBe('pending_approval');
  });
});

describe('a payment intent closed short of its incomingAmount', () => {
  // An open intent for 10.00 on a wallet address of `node` that needs no approval, paid 3.00 by a local
  // payment and 2.00 by the other node's over Interledger.
  const paidShort = async (node: Pick<TestStack, 'admin'>, other: Pick<TestStack, 'admin'>, localFrom: string, otherFrom: string) => {
    const base = node === a ? a.openPaymentsUrl : b.openPaymentsUrl;
    const shop = await ok(node.admin('POST', '/wallet-addresses', { address: `${base}/shop-${Date.now()}`, assetCode: 'USD', approvalRequired: false }));
    const intent = await ok(node.admin('POST', '/payment-intents', { walletAddress: shop.address, incomingAmount: usd('1000') }));
    const local = await funded(node, await quoted(node, localFrom, intent.id, '300'));
    const remote = await funded(other, await quoted(other, otherFrom, intent.url, '200'));
    expect([local.state, remote.state]).toEqual(['completed', 'completed']);
    return { intent, local };
  };

  it('kept (INCOMING_PARTIAL_PAYMENTS=keep): the FSP completes it, and all that arrived stays the recipient’s', async () => {
    const { intent, local } = await paidShort(b, a, payer, alice);
    const done = await ok(b.admin('POST', `/payment-intents/${intent.id}/complete`), 200);
    expect(done).toMatchObject({ state: 'completed', receivedAmount: usd('500') });
    expect(done.partialPayment).toEqual({ keptAmount: usd('500'), returnedAmount: usd('0'), returnedTo: [] });
    expect((await ok(b.admin('POST', `/payments/${local.id}/withdraw`), 200)).withdrawnAmount).toEqual(usd('0'));
    expect((await ok(b.admin('POST', `/payment-intents/${intent.id}/withdraw`), 200)).withdrawnAmount).toEqual(usd('500'));
    expect(await check(b)).toBe(true);
  });

  it('returned (INCOMING_PARTIAL_PAYMENTS=return): completed by the FSP, the local payment gets its credit back and the packets’ stays; the webhook says so', async () => {
    const { intent, local } = await paidShort(a, b, alice, payer);
    const partialPayment = { keptAmount: usd('200'), returnedAmount: usd('300'), returnedTo: [{ paymentId: local.id, amount: usd('300') }] };
    expect(await ok(a.admin('POST', `/payment-intents/${intent.id}/complete`), 200)).toMatchObject({ receivedAmount: usd('500'), partialPayment });
    const told = await events.waitForEvent('payment_intent.completed', (d) => d.id === intent.id);
    expect(told.data).toMatchObject({ incomingAmount: usd('1000'), receivedAmount: usd('500'), partialPayment });
    expect((await ok(a.admin('POST', `/payments/${local.id}/withdraw`), 200)).withdrawnAmount).toEqual(usd('300'));
    expect((await ok(a.admin('POST', `/payment-intents/${intent.id}/withdraw`), 200)).withdrawnAmount).toEqual(usd('200'));
    expect(await check(a)).toBe(true);
    expect(sum(await ledger(a))).toBe(0n);
  });
});
