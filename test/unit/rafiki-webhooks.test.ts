import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { webhookEvents } from '../../lib/webhooks/catalog';
import { rafikiBody, rafikiEventTypes, rafikiSignature, refsNeeded } from '../../lib/webhooks/rafiki';

// Rafiki's webhook dialect (lib/webhooks/rafiki.ts): each of our events that Rafiki has, under its
// name with the data Rafiki's models give it (toData in interledger/rafiki packages/backend/src).
const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const walletAddressId = '0c5e8f1b-4a44-4f0e-9d1e-6c1b1d6f3a11';
const payment = {
  id: 'e0b4b5a4-5d43-4c2b-8a55-0a3b6c2f9d10',
  walletAddress: 'https://wallet.example/alice',
  quoteId: '7a9c6d3e-1f2b-4c5d-8e9f-0a1b2c3d4e5f',
  receiver: 'https://other.example/incoming-payments/9f1e',
  debitAmount: usd('556'),
  receiveAmount: { value: '500', assetCode: 'EUR', assetScale: 2 },
  fee: usd('6'),
  sentAmount: usd('0'),
  state: 'funding',
  createdAt: '2026-12-01T10:00:00.000Z',
  metadata: null,
};
const intent = {
  id: '5b1f1c9e-2a3d-4e5f-8a9b-0c1d2e3f4a5b',
  url: 'https://wallet.example/incoming-payments/5b1f1c9e-2a3d-4e5f-8a9b-0c1d2e3f4a5b',
  walletAddress: 'https://wallet.example/bob',
  incomingAmount: usd('500'),
  paidAmount: usd('500'),
  receivedAmount: usd('495'),
  receivingFee: usd('5'),
  state: 'completed',
  expiresAt: '2026-12-02T10:00:00.000Z',
  createdAt: '2026-12-01T10:00:00.000Z',
  metadata: { description: 'For lunch!' },
};
const asRafiki = (type: string, data: unknown, refs = {}) => rafikiBody({ id: 'ev-1', type, data }, refs);

describe("Rafiki's webhook dialect", () => {
  it("names each of ours that Rafiki has by Rafiki's name, and only catalogued ones", () => {
    for (const ours of Object.keys(rafikiEventTypes)) expect(webhookEvents).toHaveProperty([ours]);
    expect(Object.values(rafikiEventTypes).sort()).toEqual(
      [
        'asset.liquidity_low',
        'incoming_payment.completed',
        'incoming_payment.created',
        'incoming_payment.expired',
        'outgoing_payment.cancelled',
        'outgoing_payment.completed',
        'outgoing_payment.created',
        'outgoing_payment.failed',
        'outgoing_payment.funded',
        'peer.liquidity_low',
        'wallet_address.not_found',
      ].sort(),
    );
  });

  it('gives outgoing_payment.created the data of OutgoingPayment.toData: our id, the wallet address id, FUNDING, nothing held', () => {
    expect(refsNeeded('payment.created', payment)).toEqual({ walletAddress: payment.walletAddress });
    const body = asRafiki('payment.created', payment, { walletAddressId });
    expect(body).toEqual({
      id: 'ev-1',
      type: 'outgoing_payment.created',
      data: {
        id: payment.id,
        walletAddressId,
        state: 'FUNDING',
        receiver: payment.receiver,
        debitAmount: usd('556'),
        receiveAmount: { value: '500', assetCode: 'EUR', assetScale: 2 },
        sentAmount: usd('0'),
        stateAttempts: 0,
        createdAt: payment.createdAt,
        balance: '0',
      },
    });
    expect(Object.keys(body.data as object)).toEqual([
      'id',
      'walletAddressId',
      'state',
      'receiver',
      'debitAmount',
      'receiveAmount',
      'sentAmount',
      'stateAttempts',
      'createdAt',
      'balance',
    ]);
  });

  it("maps every payment state to Rafiki's, with what the payment's account holds as balance", () => {
    const as = (state: string, more: object = {}) => asRafiki(`payment.${state}`, { ...payment, state, ...more }, { walletAddressId });
    expect(as('funded', { state: 'sending' })).toMatchObject({ type: 'outgoing_payment.funded', data: { state: 'SENDING', balance: '556' } });
    expect(as('completed', { sentAmount: usd('550') })).toMatchObject({
      type: 'outgoing_payment.completed',
      data: { state: 'COMPLETED', sentAmount: usd('550'), balance: '0' },
    });
    expect(as('failed', { sentAmount: usd('100'), failureReason: 'no_route' })).toMatchObject({
      type: 'outgoing_payment.failed',
      data: { state: 'FAILED', balance: '456', error: 'no_route' },
    });
    expect(as('cancelled', { cancelReason: 'quote_expired' })).toMatchObject({
      type: 'outgoing_payment.cancelled',
      data: { state: 'CANCELLED', balance: '0', error: 'quote_expired' },
    });
    const withGrant = as('created', { metadata: { a: 1 }, grantId: 'g-1', client: 'https://app.example/me' }).data;
    expect(withGrant).toMatchObject({ metadata: { a: 1 }, grantId: 'g-1', client: 'https://app.example/me' });
  });

  it('gives incoming_payment.* the data of IncomingPayment.toData: the id of its URL, what was paid, completed', () => {
    expect(refsNeeded('payment_intent.created', intent)).toEqual({ walletAddress: intent.walletAddress });
    const body = asRafiki('payment_intent.completed', intent, { walletAddressId });
    expect(body).toEqual({
      id: 'ev-1',
      type: 'incoming_payment.completed',
      data: {
        id: intent.url.split('/').pop(),
        walletAddressId,
        createdAt: intent.createdAt,
        expiresAt: intent.expiresAt,
        receivedAmount: usd('500'),
        completed: true,
        incomingAmount: usd('500'),
        metadata: { description: 'For lunch!' },
      },
    });
    const open = { ...intent, state: 'pending', incomingAmount: null, paidAmount: usd('0'), metadata: null, approvedAt: '2026-12-01T10:01:00.000Z' };
    expect(asRafiki('payment_intent.created', open, { walletAddressId })).toMatchObject({
      type: 'incoming_payment.created',
      data: { completed: false, receivedAmount: usd('0'), approvedAt: open.approvedAt },
    });
    expect(asRafiki('payment_intent.created', open, { walletAddressId }).data).not.toHaveProperty('incomingAmount');
    expect(asRafiki('payment_intent.expired', { ...intent, state: 'expired' }, { walletAddressId })).toMatchObject({
      type: 'incoming_payment.expired',
      data: { completed: false },
    });
  });

  it('gives wallet_address.not_found its URL as it is, and the liquidity events their asset, threshold and balance', () => {
    const url = 'https://happy-life-bank-test-backend:4100/accounts/asmith';
    expect(asRafiki('wallet_address.not_found', { walletAddressUrl: url })).toEqual({
      id: 'ev-1',
      type: 'wallet_address.not_found',
      data: { walletAddressUrl: url },
    });
    const asset = { id: 'a-1', code: 'USD', scale: 2, liquidityThreshold: '1000', createdAt: payment.createdAt, liquidity: usd('900') };
    expect(asRafiki('asset.liquidity_low', asset).data).toEqual({
      id: 'a-1',
      asset: { id: 'a-1', code: 'USD', scale: 2 },
      liquidityThreshold: '1000',
      balance: '900',
    });
    const peer = { id: 'p-1', assetCode: 'USD', assetScale: 2, liquidityThreshold: '50', staticIlpAddress: 'test.b', liquidity: usd('40') };
    expect(refsNeeded('peer.liquidity_low', peer)).toEqual({ assetCode: 'USD' });
    expect(asRafiki('peer.liquidity_low', peer, { assetId: 'a-1' })).toEqual({
      id: 'ev-1',
      type: 'peer.liquidity_low',
      data: { id: 'p-1', asset: { id: 'a-1', code: 'USD', scale: 2 }, liquidityThreshold: '50', balance: '40' },
    });
  });

  it('sends ours that Rafiki lacks under our name with our data, and refuses to guess an id it was not given', () => {
    const revoked = { id: 'g-1', state: 'revoked' };
    expect(asRafiki('grant.revoked', revoked)).toEqual({ id: 'ev-1', type: 'grant.revoked', data: revoked });
    expect(() => asRafiki('payment.created', payment)).toThrow(/wallet address id/);
  });

  it('signs as Rafiki: t=<ms>, v1=HMAC-SHA256 of "<t>.<RFC 8785 JSON>" with the secret as the key', () => {
    const body = { id: 'ev-1', type: 'wallet_address.not_found', data: { walletAddressUrl: 'https://w.example/a', b: [2, 1], a: 'é' } };
    // RFC 8785 by hand: keys sorted, no spaces, strings as JSON writes them.
    const canonical = '{"data":{"a":"é","b":[2,1],"walletAddressUrl":"https://w.example/a"},"id":"ev-1","type":"wallet_address.not_found"}';
    const expected = createHmac('sha256', 'iyIgCprjb9uL8wFckR+pLEkJWMB7FJhgkvqhTQR/964=').update(`1764583200123.${canonical}`).digest('hex');
    expect(rafikiSignature('iyIgCprjb9uL8wFckR+pLEkJWMB7FJhgkvqhTQR/964=', body, 1764583200123)).toBe(`t=1764583200123, v1=${expected}`);
  });
});
