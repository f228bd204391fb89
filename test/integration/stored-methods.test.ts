import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import type { TestStack } from '../harness/stack';
import { ledger, ok, paymentIn, startPaymentsStack, sum, units, type World } from '../harness/world';

// Quotes and payments stored before they named their payment method (lib/quotes/method.ts): a local
// one with its intent's id and asset at the top of the item, an Interledger one with what its probe
// found under `ilp`, neither with `method`. Each is written in that shape here, over the item the
// service stored, and must still be paid and complete.
let a: TestStack;
let w: World;
let b: OtherNode;
let stop: () => Promise<void>;
let bob: string; // on B, USD

beforeAll(async () => {
  let s: TestStack;
  [{ s, w, stop }, b] = await Promise.all([startPaymentsStack({ settings: { ILP_ADDRESS: 'test.node-a' } }), startOtherNode({ ILP_ADDRESS: 'test.node-b' })]);
  a = s;
  await ok(b.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  bob = (await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/bob`, assetCode: 'USD' }))).address;
  const { peerOfB } = await peerBothWays(a, b);
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
});
afterAll(async () => {
  await Promise.all([stop?.(), b?.stop()]);
});

const items = () => DynamoDBDocumentClient.from(a.dynamo);
const keyOf = (kind: 'QUOTE' | 'PAYMENT', id: string) => ({ pk: `${kind}#${id}`, sk: kind });

// Rewrites a stored quote or payment in the shape items had before `method`, and answers it as stored now.
async function storeInTodaysShape(kind: 'QUOTE' | 'PAYMENT', id: string) {
  const { Item } = await items().send(new GetCommand({ TableName: a.env.MAIN_TABLE, Key: keyOf(kind, id), ConsistentRead: true }));
  const { method, local, ...rest } = Item!;
  const old = method === 'local' ? { ...rest, intentId: local.intentId, destinationAssetId: local.destinationAssetId } : rest;
  await items().send(new PutCommand({ TableName: a.env.MAIN_TABLE, Item: old }));
  return { method, old };
}

const stored = async (kind: 'QUOTE' | 'PAYMENT', id: string) =>
  (await items().send(new GetCommand({ TableName: a.env.MAIN_TABLE, Key: keyOf(kind, id), ConsistentRead: true }))).Item!;

describe('quotes and payments stored before their method was', () => {
  it('a local quote and its payment in the old shape: the payment is created from the quote, funded, and completes', async () => {
    const intent = await ok(
      a.admin('POST', '/payment-intents', { walletAddress: w.carlos, incomingAmount: { value: '450', assetCode: 'EUR', assetScale: 2 } }),
    );
    const quote = await ok(a.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.id }));
    const rewritten = await storeInTodaysShape('QUOTE', quote.id);
    expect(rewritten.method).toBe('local');
    expect(rewritten.old).toMatchObject({ intentId: intent.id, destinationAssetId: w.eur.id });
    expect(rewritten.old).not.toHaveProperty('method');

    const payment = await ok(a.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    expect(await stored('PAYMENT', payment.id)).toMatchObject({ method: 'local', local: { intentId: intent.id, destinationAssetId: w.eur.id } });
    await storeInTodaysShape('PAYMENT', payment.id);
    await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(await paymentIn(a, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed', sentAmount: quote.debitAmount });
    const books = await ledger(a);
    expect(books.get(`intent:${intent.id}`)).toBe(units(450));
    expect(sum(books)).toBe(0n);
  });

  it('an Interledger quote and its payment in the old shape: the payment is created from the quote, funded, and completes over the peer', async () => {
    const intent = await ok(b.admin('POST', '/payment-intents', { walletAddress: bob, incomingAmount: { value: '700', assetCode: 'USD', assetScale: 2 } }));
    const quote = await ok(a.admin('POST', '/quotes', { walletAddress: w.alice, receiver: intent.url }));
    const rewritten = await storeInTodaysShape('QUOTE', quote.id);
    expect(rewritten.method).toBe('ilp');
    expect(rewritten.old).not.toHaveProperty('method');
    expect(rewritten.old.ilp).toMatchObject({ peerId: expect.any(String), minRate: expect.any(Array), maxPacketAmount: expect.any(String) });

    const payment = await ok(a.admin('POST', '/payments', { walletAddress: w.alice, quoteId: quote.id }));
    expect(await stored('PAYMENT', payment.id)).toMatchObject({ method: 'ilp', ilp: rewritten.old.ilp });
    await storeInTodaysShape('PAYMENT', payment.id);
    await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(await paymentIn(a, payment.id, ['completed', 'failed'], 60_000)).toMatchObject({ state: 'completed' });
    expect((await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).state).toBe('completed');
    expect(sum(await ledger(a))).toBe(0n);
  });
});
