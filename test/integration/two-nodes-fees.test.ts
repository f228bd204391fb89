import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtherNode, peerBothWays, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ok, packetsOf, paymentIn, sum, units } from '../harness/world';

// Fees across two nodes (issue 31): A's sender pays its sending fee in USD, on A; B's intent pays
// its receiving fee in EUR, on B, out of what the packets credit. Neither is converted.
let a: TestStack;
let b: OtherNode;
let alice: string; // on A, USD
let carlos: string; // on B, EUR
const asset: Record<'aUsd' | 'bEur', string> = { aUsd: '', bEur: '' };

beforeAll(async () => {
  [a, b] = await Promise.all([startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.node-a' }), startOtherNode({ ILP_ADDRESS: 'test.node-b' })]);
  asset.aUsd = (await ok(a.admin('POST', '/assets', { code: 'USD', scale: 2 }))).id;
  await ok(b.admin('POST', '/assets', { code: 'USD', scale: 2 }));
  asset.bEur = (await ok(b.admin('POST', '/assets', { code: 'EUR', scale: 2 }))).id;
  await ok(b.admin('POST', `/assets/${asset.bEur}/liquidity`, { amount: '1000000' }), 200);
  alice = (await ok(a.admin('POST', '/wallet-addresses', { address: `${a.openPaymentsUrl}/alice`, assetCode: 'USD' }))).address;
  carlos = (await ok(b.admin('POST', '/wallet-addresses', { address: `${b.openPaymentsUrl}/carlos`, assetCode: 'EUR' }))).address;
  const { peerOfA, peerOfB } = await peerBothWays(a, b);
  await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '1000000' }), 200);
  await ok(a.admin('POST', '/rates', { peerId: peerOfA.id, sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9, rateTtlSecs: 86400 }));
  await ok(b.admin('POST', '/rates', { peerId: peerOfB.id, sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 0.9, rateTtlSecs: 86400 }));
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const usd = (value: string) => ({ value, assetCode: 'USD', assetScale: 2 });
const eur = (value: string) => ({ value, assetCode: 'EUR', assetScale: 2 });
const bBooks = () => ledger({ dynamo: a.dynamo, env: b.env });

describe('fees across two nodes', () => {
  it('takes the sending fee in USD on A and the receiving fee in EUR on B, once per intent however many packets; both ledgers balanced', async () => {
    await ok(a.admin('PATCH', `/assets/${asset.aUsd}`, { sendingFee: { fixed: '10', basisPoints: 50 } }), 200);
    await ok(b.admin('PATCH', `/assets/${asset.bEur}`, { receivingFee: { fixed: '5', basisPoints: 100 } }), 200);
    // Small packets, so that the intent is credited many times.
    const peers = (await ok(b.admin('GET', '/peers'), 200)).items;
    await ok(b.admin('PATCH', `/peers/${peers[0].id}`, { maxPacketAmount: '150' }), 200);

    const intent = await ok(b.admin('POST', '/payment-intents', { walletAddress: carlos, incomingAmount: eur('900') }));
    const quote = await ok(a.admin('POST', '/quotes', { walletAddress: alice, receiver: intent.url }));
    // 9.00 EUR at 0.9 is 10.00 USD, and 0.10 + 0.05 (50 bps of 10.00) of sending fee.
    expect(quote).toMatchObject({ debitAmount: usd('1015'), receiveAmount: eur('900'), fee: usd('15') });
    const payment = await ok(a.admin('POST', '/payments', { walletAddress: alice, quoteId: quote.id }));
    await ok(a.admin('POST', `/payments/${payment.id}/fund`), 200);
    expect(await paymentIn(a, payment.id, ['completed', 'failed'])).toMatchObject({ state: 'completed', fee: usd('15'), sentAmount: usd('1000') });
    expect((await packetsOf(a, payment.id)).filter((k) => k.state === 'fulfilled').length).toBeGreaterThan(1);

    // 0.05 + 1% of 9.00 in EUR, as if it came in one packet.
    expect(await ok(b.admin('GET', `/payment-intents/${intent.id}`), 200)).toMatchObject({
      state: 'completed',
      paidAmount: eur('900'),
      receivingFee: eur('14'),
      receivedAmount: eur('886'),
    });
    const [booksA, booksB] = [await ledger(a), await bBooks()];
    expect(booksA.get(`fee:${asset.aUsd}`)).toBe(units(15));
    expect(booksA.get(`payment:${payment.id}`) ?? 0n).toBe(0n);
    expect(booksB.get(`fee:${asset.bEur}`)).toBe(units(14));
    expect(booksB.get(`intent:${intent.id}`)).toBe(units(886));
    expect(sum(booksA)).toBe(0n);
    expect(sum(booksB)).toBe(0n);
    for (const node of [a, b]) expect(await ok(node.admin('GET', '/ledger/check'), 200)).toMatchObject({ balanced: true, unattributed: [] });
  });
});
