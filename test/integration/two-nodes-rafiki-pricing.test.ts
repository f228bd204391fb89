import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, paymentIn, sum } from '../harness/world';

// QUOTE_PRICING=rafiki (issue 44, item 4): Node A prices its quotes as Rafiki does, with the amounts
// Rafiki's own integration suite expects of Rafiki (0.91 EUR per USD on both nodes, SLIPPAGE 0.01).
// Over Interledger the debit carries the slippage and the payment sends what delivering costs; the
// rest of the debit stays in the payment's account, withdrawable. To A's own receivers: no slippage.
let a: TestStack;
let b: OtherNode;
let alice: string; // on A, USD
let lars: string; // on A, EUR
let bob: string; // on B, USD
let carlos: string; // on B, EUR
let aUsd: string; // A's USD asset

beforeAll(async () => {
  [a, b] = await Promise.all([
    startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a', QUOTE_PRICING: 'rafiki' }),
    startOtherNode({ ILP_ADDRESS: 'test.node-b' }),
  ]);
  aUsd = (await ok(a.admin('POST', '/assets', { code: 'USD', scale: 2 }))).id;
  await ok(b.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  for (const node of [a, b]) {
    const eur = await ok(node.admin('POST', '/assets', { code: 'EUR', scale: 2 }));
    await ok(node.admin('POST', `/assets/${eur.id}/liquidity`, { amount: '1000000' }), 200);
  }
  const wallet = async (node: TestStack | OtherNode, name: string, assetCode: string) =>
    (await ok(node.admin('POST', '/wallet-addresses', { address: `${node.openPaymentsUrl}/${name}`, assetCode }))).address as string;
  [alice, lars, bob, carlos] = await Promise.all([wallet(a, 'alice', 'USD'), wallet(a, 'lars', 'EUR'), wallet(b, 'bob', 'USD'), wallet(b, 'carlos', 'EUR')]);
  const { peerOfA, peerOfB } = await peerBothWays(a, b);
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
  const rate = { sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.91, rateTtlSecs: 86400 };
  await ok(a.admin('POST', '/rates', { ...rate, peerId: peerOfA.id })); // what A expects of the route
  await ok(b.admin('POST', '/rates', { ...rate, peerId: peerOfB.id })); // B converts what A sends in USD
  await ok(a.admin('POST', '/rates', rate)); // A's own, for its local receivers
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const eur = (value: string) => ({ value, assetCode: 'EUR', assetScale: 2 });

// A quote on A from Alice to `receiver` (with `amount` if given), its payment funded and ended.
async function pay(receiver: string, amount: Record<string, unknown> = {}) {
  const quote = await ok(a.admin('POST', '/quotes', { walletAddress: alice, receiver, ...amount }));
  const created = await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id }));
  await ok(a.admin('POST', `/payments/${created.id}/fund`), 200);
  return { quote, payment: await paymentIn(a, created.id, ['completed', 'failed'], 60_000) };
}
const intentOn = async (node: TestStack | OtherNode, walletAddress: string, incomingAmount?: object) =>
  ok(node.admin('POST', '/payment-intents', { walletAddress, ...(incomingAmount && { incomingAmount }) }));

async function expectBalanced() {
  expect(sum(await ledger(a))).toBe(0n);
  expect(sum(await ledger({ dynamo: a.dynamo, env: b.env }))).toBe(0n);
  for (const node of [a, b]) expect(await ok(node.admin('GET', '/ledger/check'), 200)).toMatchObject({ balanced: true, unattributed: [] });
}

type Amount = ReturnType<typeof usd>;
// Alice pays an intent on `on` (by `receiver`, its URL or id): the quote's amounts, the payment's
// sentAmount once completed, and what the intent received (the receive amount).
async function expectPays(
  on: TestStack | OtherNode,
  intent: { id: string },
  receiver: string,
  amount: Record<string, unknown>,
  want: Record<'debit' | 'receive' | 'sent', Amount>,
) {
  const { quote, payment } = await pay(receiver, amount);
  expect(quote).toMatchObject({ debitAmount: want.debit, receiveAmount: want.receive });
  expect(payment).toMatchObject({ state: 'completed', debitAmount: want.debit, sentAmount: want.sent });
  expect(await ok(on.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({ receivedAmount: want.receive });
  return { quote, payment };
}
const withdrawn = async (payment: { id: string }) => (await ok(a.admin('POST', `/payments/${payment.id}/withdraw`), 200)).withdrawnAmount;

describe("Rafiki's quote pricing across two nodes", () => {
  it('500 EUR at 0.91 to another node: debit 556 (the rate less 1%), 550 sent, the 6 left withdrawable', async () => {
    const intent = await intentOn(b, carlos, eur('500'));
    const { payment } = await expectPays(b, intent, intent.url, {}, { debit: usd('556'), receive: eur('500'), sent: usd('550') });
    expect(payment.fee).toEqual(usd('0'));
    // What the debit did not need stays in the payment's account until the FSP takes it back.
    expect(await withdrawn(payment)).toEqual(usd('6'));
    await expectBalanced();
  });

  it('100 USD to another node in the same asset: debit 102, 100 sent', async () => {
    const intent = await intentOn(b, bob, usd('100'));
    const { payment } = await expectPays(b, intent, intent.url, {}, { debit: usd('102'), receive: usd('100'), sent: usd('100') });
    expect(await withdrawn(payment)).toEqual(usd('2'));
    await expectBalanced();
  });

  it('a fixed send of 50 USD to another node: 49 to receive, 49 sent and delivered', async () => {
    const intent = await intentOn(b, bob);
    await expectPays(b, intent, intent.url, { debitAmount: usd('50') }, { debit: usd('50'), receive: usd('49'), sent: usd('49') });
    await expectBalanced();
  });

  it("to a receiver of this node: no slippage (500 EUR at 0.91 is 550 debited and sent); a fixed debit's fee on all of it", async () => {
    const intent = await intentOn(a, lars, eur('500'));
    await expectPays(a, intent, intent.id, {}, { debit: usd('550'), receive: eur('500'), sent: usd('550') });

    // A 10% sending fee on a fixed debit of 10.00: Rafiki's takes 1.00 (ours would take 0.91 and send 9.09).
    await ok(a.admin('PATCH', `/assets/${aUsd}`, { sendingFee: { fixed: '0', basisPoints: 1000 } }), 200);
    const open = await intentOn(a, lars);
    const want = { debit: usd('1000'), receive: eur('819'), sent: usd('900') }; // floor(900 × 0.91)
    const { quote } = await expectPays(a, open, open.id, { debitAmount: usd('1000') }, want).finally(() =>
      a.admin('PATCH', `/assets/${aUsd}`, { sendingFee: null }),
    );
    expect(quote.fee).toEqual(usd('100'));
    await expectBalanced();
  });
});
