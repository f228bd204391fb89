import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { putGrant } from '../../../lib/auth-server/store';
import { holdAssetLiquidity } from '../../../lib/liquidity-withdrawals';
import { createIntent } from '../../../lib/payment-intents';
import { createPayment } from '../../../lib/payments';
import { createQuote } from '../../../lib/payments/methods/quote';
import { createPeer } from '../../../lib/peers';
import { commit } from '../../../lib/platform/tx';
import { search } from '../../../lib/search';
import { intentUrl, outgoingPaymentUrl, quoteUrl } from '../../../lib/shared/resources';
import { getWalletAddressByUrl } from '../../../lib/wallet-addresses';
import { firstRecord } from '../../../lib/webhooks/store';
import { inMemory, memoryWorld } from '../../harness/in-memory';
import { peerBody } from '../../harness/peers';

// GET /search's look-up in memory: each kind of object found by its id, in one read; a URL of a
// wallet address or of one of this node's Open Payments resources found as what it names; an
// unknown id found as nothing; and another tenant's objects never found. (The route, its role
// and the console's search box: test/integration/console-search.test.ts.)
const mem = inMemory({ ALLOW_PRIVATE_PEERS: 'operator' }, { fresh: 'file' });
let w: Awaited<ReturnType<typeof memoryWorld>>;
beforeAll(async () => {
  w = await memoryWorld(mem);
});
const find = (q: string, node = mem.node) => search(node, { q });

describe('search', () => {
  it('finds each kind of object by its id, with one read of the database', async () => {
    const intent = await createIntent(mem.node, { walletAddress: w.carlos } as never);
    const quote = await createQuote(mem.node, {
      walletAddress: w.alice,
      receiver: intent.id,
      debitAmount: { value: '100', assetCode: 'USD', assetScale: 2 },
    } as never);
    const payment = await createPayment(mem.node, { walletAddress: w.alice, quoteId: quote.id } as never);
    const alice = await getWalletAddressByUrl(mem.node, w.alice);
    const peer = await createPeer(mem.node, peerBody(1, { assetCode: 'EUR' }));
    const withdrawal = await holdAssetLiquidity(mem.node, w.eur.id, '100');
    const grantId = randomUUID();
    const client = { walletAddress: w.bob };
    await commit(mem.node, [
      putGrant(mem.node, { id: grantId, state: 'approved', access: [], client, continueTokenHash: 'x', createdAt: new Date().toISOString() } as never),
    ]);
    const eventId = randomUUID();
    const event = { id: eventId, type: 'payment.created', createdAt: new Date().toISOString(), data: { id: payment.id } };
    await commit(mem.node, firstRecord(mem.node, event as never, { at: event.createdAt, status: 200, ms: 3 }, 'delivered', 0));

    const send = vi.spyOn(mem.db, 'send');
    const expected: Array<[string, string]> = [
      ['payment', payment.id],
      ['payment-intent', intent.id],
      ['quote', quote.id],
      ['wallet-address', alice.id],
      ['peer', peer.id],
      ['liquidity-withdrawal', withdrawal.id],
      ['grant', grantId],
      ['webhook-event', eventId],
      ['asset', w.usd.id],
    ];
    for (const [type, id] of expected) {
      send.mockClear();
      expect(await find(id), type).toEqual({ items: [{ type, id }] });
      expect(send.mock.calls.map(([c]) => c.constructor.name)).toEqual(['BatchGetCommand']);
    }
    send.mockRestore();
    // In any letter case, inside a ledger account's name, or around spaces.
    expect(await find(` payment:${payment.id.toUpperCase()} `)).toEqual({ items: [{ type: 'payment', id: payment.id }] });
    // URLs: a wallet address's (any case, a trailing slash), this node's incoming and outgoing payments' and quotes'.
    expect(await find(`${w.alice.toUpperCase()}/`)).toEqual({ items: [{ type: 'wallet-address', id: alice.id }] });
    expect(await find(intentUrl(mem.node, intent.id))).toEqual({ items: [{ type: 'payment-intent', id: intent.id }] });
    expect(await find(outgoingPaymentUrl(mem.node, payment.id))).toEqual({ items: [{ type: 'payment', id: payment.id }] });
    expect(await find(quoteUrl(mem.node, quote.id))).toEqual({ items: [{ type: 'quote', id: quote.id }] });
    // The URL names its kind: an intent's URL with a payment's id in it is nothing.
    expect(await find(intentUrl(mem.node, payment.id))).toEqual({ items: [] });
  });

  it('finds nothing for an unknown id, a URL of nothing here, or text that is neither', async () => {
    for (const q of [randomUUID(), `${w.alice}-nobody`, 'https://elsewhere.example/incoming-payments/x', 'hello', '0192f0e4-7b1c-7abc-8def-0123456789ab']) {
      expect(await find(q), q).toEqual({ items: [] });
    }
  });

  it("never finds another tenant's objects, which that tenant finds", async () => {
    const acme = mem.tenant({ id: randomUUID(), walletAddressPrefix: 'https://wallet.example/acme' } as never);
    const intent = await createIntent(mem.node, { walletAddress: w.bob } as never);
    expect(await find(intent.id, acme)).toEqual({ items: [] });
    expect(await find(w.bob, acme)).toEqual({ items: [] });
    expect(await find(intent.id)).toEqual({ items: [{ type: 'payment-intent', id: intent.id }] });
  });
});
