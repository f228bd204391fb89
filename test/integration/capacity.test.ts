import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownEmulators } from '../harness/emulators';
import { type OtherNode, startOtherNode } from '../harness/node';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledgerItems, ok, packetsOf, paymentIn } from '../harness/world';
import { hottest, recordWrites, type WriteRates } from '../readers/write-rates';

// A DynamoDB Local of its own, not one of the run's pool (test/harness/emulators.ts):
// what it measures is this test's writes alone.
ownEmulators();

// No hot item on the packet path (README "Capacity"). Many senders on Node A pay intents on Node B
// at once, all through one peer, in small packets, across currencies both ways (so that both
// nodes' asset liquidity is on the path, besides their peer accounts). Every write each node's
// table took is read from its stream and counted per item and per partition of the Lists and Lists2
// indexes, which hold the transfer history (a split account's history is split as its balance is).
// DynamoDB gives one partition 1,000 write units a second, and a transactional write of an item up
// to 1 KB costs 2: at most 500 transactional writes a second for any one item. The budget is a
// quarter of that, 125 a second, at a design peak of 1,000 packets a second through one peer:
// - an item every payment may write (a peer's, an asset's, a list's partition) may take no more
//   than one packet in eight (SHARED_SHARE);
// - an item of one payment or one intent (its accounts, its record) is written by that payment's
//   packets only, at most twice each (PER_OWN_PACKET): 125 a second allows one payment 62 packets
//   a second, more than one STREAM connection sends (the note has what it sent here).
const SHARED_SHARE = 1 / 8;
const PER_OWN_PACKET = 2;
const SENDERS = 8;
const PACKETS_EACH = 40; // a payment of 40.00 in packets of at most 1.00
// The payment or intent an item belongs to, if one: its accounts and their history, its
// partition's items. (A transfer's record and legs are one packet's.)
const ownerOf = (key: string) =>
  /^(?:ACCT#(?:hold|payment|intent):|Lists2?: HIST#(?:hold|payment|intent):|PAYMENT#|INTENT#)([0-9a-f-]{36})/.exec(key)?.[1] ??
  (key.startsWith('XFER#') ? 'packet' : undefined);

let a: TestStack;
let b: OtherNode;
const assets = new Map<TestStack | OtherNode, Record<string, string>>(); // node -> code -> id

// On the file's own emulators (test/harness/emulators.ts): what it measures is this test's writes alone.
beforeAll(async () => {
  [a, b] = await Promise.all([startTestStack({ EXCHANGE_RATES_URL: '', ILP_ADDRESS: 'test.cap-a' }), startOtherNode({ ILP_ADDRESS: 'test.cap-b' })]);
  for (const node of [a, b]) {
    assets.set(node, {});
    for (const code of ['USD', 'EUR']) {
      const asset = await ok(node.admin('POST', '/assets', { code, scale: 2 }));
      await ok(node.admin('POST', `/assets/${asset.id}/liquidity`, { amount: '100000000' }), 200);
      assets.get(node)![code] = asset.id;
    }
  }
});
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const wallet = async (node: TestStack | OtherNode, name: string, assetCode: string) =>
  (await ok(node.admin('POST', '/wallet-addresses', { address: `${node.openPaymentsUrl}/${name}`, assetCode }))).address as string;

describe('capacity: many senders through one peer', () => {
  it(`no shared item takes more than one packet in ${1 / SHARED_SHARE}, and the liquidity stays exact`, async () => {
    const [alice, alba, bob, carlos] = await Promise.all([
      wallet(a, 'alice', 'USD'),
      wallet(a, 'alba', 'EUR'),
      wallet(b, 'bob', 'USD'),
      wallet(b, 'carlos', 'EUR'),
    ]);
    const peerOfA = await ok(
      a.admin('POST', '/peers', {
        name: 'Node B',
        staticIlpAddress: 'test.cap-b',
        assetCode: 'USD',
        maxPacketAmount: '100',
        http: { incoming: { authTokens: ['cap-b-to-a-token-0123456789'] }, outgoing: { authToken: 'cap-a-to-b-token-0123456789', endpoint: b.connectorUrl } },
      }),
    );
    const peerOfB = await ok(
      b.admin('POST', '/peers', {
        name: 'Node A',
        staticIlpAddress: 'test.cap-a',
        assetCode: 'USD',
        http: { incoming: { authTokens: ['cap-a-to-b-token-0123456789'] }, outgoing: { authToken: 'cap-b-to-a-token-0123456789', endpoint: a.connectorUrl } },
      }),
    );
    await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity`, { amount: '100000000' }), 200);
    // One to one, so that amounts stay round: A converts EUR to the peer's USD, B USD to EUR.
    for (const [source, destination] of [
      ['USD', 'EUR'],
      ['EUR', 'USD'],
    ])
      await ok(a.admin('POST', '/rates', { peerId: peerOfA.id, sourceAssetCode: source, destinationAssetCode: destination, rate: 1, rateTtlSecs: 86400 }));
    await ok(b.admin('POST', '/rates', { peerId: peerOfB.id, sourceAssetCode: 'USD', destinationAssetCode: 'EUR', rate: 1, rateTtlSecs: 86400 }));

    // Half the senders pay from USD to EUR (B converts), half from EUR to USD (A converts).
    const flows = await Promise.all(
      Array.from({ length: SENDERS }, async (_, i) => {
        const [from, to, code] = i % 2 ? [alba, bob, 'USD'] : [alice, carlos, 'EUR'];
        const intent = await ok(
          b.admin('POST', '/payment-intents', { walletAddress: to, incomingAmount: { value: String(PACKETS_EACH * 100), assetCode: code, assetScale: 2 } }),
        );
        const quote = await ok(a.admin('POST', '/quotes', { walletAddress: from, receiver: intent.url }));
        return { intent, payment: await ok(a.admin('POST', '/payments', { walletAddress: from, quoteId: quote.id })) };
      }),
    );

    const [onA, onB] = await Promise.all([recordWrites(a.dynamo, a.env.MAIN_TABLE), recordWrites(a.dynamo, b.env.MAIN_TABLE)]);
    const started = Date.now();
    await Promise.all(flows.map((f) => ok(a.admin('POST', `/payments/${f.payment.id}/fund`), 200)));
    const done = await Promise.all(flows.map((f) => paymentIn(a, f.payment.id, ['completed', 'failed'], 120_000)));
    const elapsed = (Date.now() - started) / 1000;
    const [ratesA, ratesB] = await Promise.all([onA.stop(), onB.stop()]);

    // The packets that paid, counted from B's side: one transfer record each (a packet across
    // currencies has a second leg's item beside it). Each payment's packets, from A's: all it sent
    // (a rejected or unanswered one writes as much as one that paid).
    const packets = [...ratesB.writes.keys()].filter((k) => k.startsWith('XFER#ilp:') && k.endsWith(' | XFER')).length;
    const sentBy = new Map(await Promise.all(flows.map(async (f) => [f.payment.id, await packetsOf(a, f.payment.id)] as const)));
    const ownPackets = new Map<string, number>([
      ['packet', 1],
      ...flows.flatMap((f) => [[f.payment.id, sentBy.get(f.payment.id)!.length] as const, [f.intent.id, PACKETS_EACH] as const]),
    ]);
    const sent = [...sentBy.values()].flat();
    const byState = Object.fromEntries(['fulfilled', 'rejected', 'unanswered'].map((state) => [state, sent.filter((k) => k.state === state).length]));
    console.log(
      `capacity: ${packets} packets through one peer in ${elapsed.toFixed(1)} s: ${(packets / elapsed).toFixed(1)} packets/s; A sent ${JSON.stringify(byState)}`,
    );
    const report = (name: string, rates: WriteRates) =>
      [...hottest(rates, 6, (key) => !ownerOf(key)), ...hottest(rates, 2, (key) => ownerOf(key) !== undefined)].map(([key, w]) => ({
        node: name,
        item: key,
        writes: w.total,
        perPacket: +(w.total / (ownPackets.get(ownerOf(key) ?? '') ?? packets)).toFixed(3),
        peakPerSecond: w.peakPerSecond,
      }));
    console.table([...report('A', ratesA), ...report('B', ratesB)]);

    expect(done.map((p) => p.failureReason ?? p.state)).toEqual(flows.map(() => 'completed'));
    expect(packets).toBe(SENDERS * PACKETS_EACH);
    for (const rates of [ratesA, ratesB])
      for (const [key, w] of rates.writes) {
        const owner = ownerOf(key);
        if (owner) {
          const own = ownPackets.get(owner);
          expect(own, `${key}: of no payment or intent of this test`).toBeDefined();
          expect(w.total, `${key} took ${w.total} writes for its own ${own} packets`).toBeLessThanOrEqual(PER_OWN_PACKET * own!);
        } else expect(w.total / packets, `${key} took ${w.total} writes for ${packets} packets`).toBeLessThanOrEqual(SHARED_SHARE);
      }

    // One balance each, exact, whatever shards hold it: B's peer paid every packet; each side's
    // conversions moved half of them between its USD and EUR liquidity.
    const half = SENDERS * PACKETS_EACH * 50;
    expect((await ok(b.admin('GET', `/peers/${peerOfB.id}`), 200)).liquidity.value).toBe(String(100000000 - 2 * half));
    const liquidity = async (node: TestStack | OtherNode) =>
      Object.fromEntries(
        await Promise.all(['USD', 'EUR'].map(async (code) => [code, (await ok(node.admin('GET', `/assets/${assets.get(node)![code]}`), 200)).liquidity.value])),
      );
    expect(await liquidity(a)).toEqual({ USD: String(100000000 - half), EUR: String(100000000 + half) });
    expect(await liquidity(b)).toEqual({ USD: String(100000000 + half), EUR: String(100000000 - half) });

    // No item went below zero, whatever the shards were asked for at once.
    for (const node of [a, { dynamo: a.dynamo, env: b.env }])
      for (const [id, balance] of await ledgerItems(node)) if (!id.startsWith('settlement:')) expect(balance, id).toBeGreaterThanOrEqual(0n);

    // Withdrawing all there is takes it from every shard that holds some; then the peer can go.
    const withdrawn = String(100000000 - 2 * half);
    expect((await ok(b.admin('POST', `/peers/${peerOfB.id}/liquidity-withdrawals`, { amount: withdrawn }), 200)).liquidity.value).toBe('0');
    await ok(b.admin('DELETE', `/peers/${peerOfB.id}`), 204);
    expect((await ok(a.admin('POST', `/assets/${assets.get(a)!.USD}/liquidity-withdrawals`, { amount: String(100000000 - half) }), 200)).liquidity.value).toBe(
      '0',
    );
  });
});
