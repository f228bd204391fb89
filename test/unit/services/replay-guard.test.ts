import { beforeAll, describe, expect, it } from 'vitest';
import { recordSignature, usedSignature } from '../../../lib/api/http/store';
import { createIntent } from '../../../lib/payment-intents';
import { createPayment } from '../../../lib/payments';
import { createQuote } from '../../../lib/payments/methods/quote';
import { idScope, seedIds } from '../../../lib/platform/ids';
import { commit, rideAlong, riderScope, untakenRider } from '../../../lib/platform/tx';
import { type AuditedKind, GUARD_ONLY } from '../../../lib/shared/audited';
import { createWalletAddress, updateWalletAddress } from '../../../lib/wallet-addresses';
import { inMemory, memoryWorld } from '../../harness/in-memory';

// The signature's replay guard in a create's record (lib/platform/tx riders, lib/api/http/store.ts
// usedSignature), in memory: a request as the Admin API's stack runs one (lib/api/http/admin.ts),
// its ids drawn from its signature's MAC, the guard riding along, or written after when no
// transaction took it. What the HTTP stack answers is test/integration/auth.test.ts's.
const mem = inMemory({}, { fresh: 'file' });
let w: Awaited<ReturnType<typeof memoryWorld>>;
beforeAll(async () => {
  w = await memoryWorld(mem);
});

const REPLAYED = 'replayed';
// What a signed request that creates a `kind` answers: its result, its error, or REPLAYED.
function signed<T>(mac: string, kind: AuditedKind, create: () => Promise<T>): Promise<T | Error | typeof REPLAYED> {
  return riderScope(() =>
    idScope(async () => {
      const guard = usedSignature(mem.node, mac, Date.now() / 1000, { kind, id: seedIds(mac) });
      rideAlong('signature', { write: () => guard, refused: () => new Error(REPLAYED), heldOnly: true });
      const outcome = await create().catch((e: Error) => (e.message === REPLAYED ? REPLAYED : e));
      const untaken = untakenRider('signature');
      if (untaken && !(await recordSignature(untaken.write([])))) return REPLAYED;
      return outcome;
    }),
  );
}
const guards = () => mem.db.items(mem.node.tables.main).filter((i) => i[GUARD_ONLY] || String(i.pk).startsWith('SIG#'));
const mac = (n: number) => n.toString(16).padStart(64, '0');

describe("the replay guard in a create's record", () => {
  it('writes no item of its own for a create, and refuses the same request again, which creates nothing', async () => {
    const intent = await signed(mac(1), 'INTENT', () =>
      createIntent(mem.node, { walletAddress: w.bob, incomingAmount: { value: '500', assetCode: 'USD', assetScale: 2 } }),
    );
    const quote = await signed(mac(2), 'QUOTE', () => createQuote(mem.node, { walletAddress: w.alice, receiver: (intent as { id: string }).id }));
    const payment = await signed(mac(3), 'PAYMENT', () => createPayment(mem.node, { walletAddress: w.alice, quoteId: (quote as { id: string }).id }));
    for (const made of [intent, quote, payment]) expect(made).toHaveProperty('id');
    expect(guards()).toEqual([]);
    const items = mem.db.items(mem.node.tables.main).length;
    // The payment's replay fails before its transaction (its quote is taken): its guard, written then, is refused.
    expect(
      await signed(mac(1), 'INTENT', () => createIntent(mem.node, { walletAddress: w.bob, incomingAmount: { value: '500', assetCode: 'USD', assetScale: 2 } })),
    ).toBe(REPLAYED);
    expect(await signed(mac(2), 'QUOTE', () => createQuote(mem.node, { walletAddress: w.alice, receiver: (intent as { id: string }).id }))).toBe(REPLAYED);
    expect(await signed(mac(3), 'PAYMENT', () => createPayment(mem.node, { walletAddress: w.alice, quoteId: (quote as { id: string }).id }))).toBe(REPLAYED);
    expect(mem.db.items(mem.node.tables.main)).toHaveLength(items);
  });

  it("keeps a refused create's guard in its record's place, which refuses the request again once it would succeed", async () => {
    const shop = await createWalletAddress(mem.node, { address: `${mem.node.urls.walletAddresses}/shop`, assetCode: 'USD' } as never);
    const setStatus = (status: string) => updateWalletAddress(mem.node, shop.id, { status } as never);
    const create = () => createIntent(mem.node, { walletAddress: shop.address });
    const before = guards().length;
    await setStatus('inactive');
    expect(await signed(mac(4), 'INTENT', create)).toMatchObject({ code: 'wallet_address_inactive' });
    expect(guards()).toHaveLength(before + 1);
    await setStatus('active');
    expect(await signed(mac(4), 'INTENT', create)).toBe(REPLAYED);
    expect(await signed(mac(5), 'INTENT', create)).toHaveProperty('id');
    expect(guards()).toHaveLength(before + 1);
  });

  // A quote over Interledger sends its probe packets through this node's own connector, in the
  // same request, which records them in a transaction of its own before the quote's.
  it("rides in no transaction the request's work commits before its create, which then holds it", async () => {
    const intent = (await signed(mac(6), 'INTENT', () => createIntent(mem.node, { walletAddress: w.bob }))) as { id: string };
    const probe = { Put: { TableName: mem.node.tables.main, Item: { pk: `PROBE#${intent.id}`, sk: 'PROBE' } } };
    const quote = () =>
      commit(mem.node, [probe]).then(() =>
        createQuote(mem.node, { walletAddress: w.alice, receiver: intent.id, debitAmount: { value: '100', assetCode: 'USD', assetScale: 2 } }),
      );
    const before = guards().length;
    expect(await signed(mac(7), 'QUOTE', quote)).toHaveProperty('id');
    expect(guards()).toHaveLength(before);
    expect(await signed(mac(7), 'QUOTE', quote)).toBe(REPLAYED);
  });
});
