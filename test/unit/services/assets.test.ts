import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it, vi } from 'vitest';
import { createAsset, getAssetWithLiquidity, listAssets, moveLiquidity, updateAsset } from '../../../lib/assets';
import { db } from '../../../lib/platform/db';
import { eventsOf, inMemory, ledgerOf, refusal } from '../../harness/in-memory';

// Assets' rules in memory: one asset a code, however many race for it; liquidity spread over
// shards; the list newest first. The Admin API's answers, its validation and its cursors' checks
// are test/integration/assets.test.ts's.
const mem = inMemory();
const usd = { code: 'USD', scale: 2 } as const;

describe('assets', () => {
  it('creates an asset and reads it back by id, with its liquidity', async () => {
    const asset = await createAsset(mem.node, usd);
    expect(asset).toEqual({ id: expect.any(String), code: 'USD', scale: 2, createdAt: expect.any(String) });
    expect(await getAssetWithLiquidity(mem.node, asset.id)).toEqual({ ...asset, liquidity: { value: '0', assetCode: 'USD', assetScale: 2 } });
    expect(await refusal(getAssetWithLiquidity(mem.node, '3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c'))).toBe('404 asset_not_found');
  });

  // CONTRIBUTING's example of a service test in memory.
  it('refuses a second asset with the same code; a change is an asset.updated event', async () => {
    const gbp = await createAsset(mem.node, { code: 'GBP', scale: 2 });
    expect(await refusal(createAsset(mem.node, { code: 'GBP', scale: 3 }))).toBe('409 asset_exists');
    await updateAsset(mem.node, gbp.id, { liquidityThreshold: '3' });
    expect(eventsOf(mem.db, 'asset.updated')).toHaveLength(1); // what the outbox holds for the relay
  });

  it('lets exactly one of a dozen racing creations of one code win; the others are 409 asset_exists', async () => {
    const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => createAsset(mem.node, { code: 'RACE1', scale: i })));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const refused = await Promise.all(results.flatMap((r) => (r.status === 'rejected' ? [refusal(Promise.reject(r.reason))] : [])));
    expect(refused).toEqual(Array(11).fill('409 asset_exists'));
    expect((await listAssets(mem.node, 100)).items.filter((a) => a.code === 'RACE1')).toHaveLength(1);
  });

  it('spreads liquidity over shards, shows one balance, and counts and takes what an unsplit account held', async () => {
    const asset = await createAsset(mem.node, { code: 'SHRD', scale: 2 });
    // What a node from before accounts were split holds: the whole balance in the account's own
    // item, against a shard of the settlement account (as its deposit booked it).
    const old = 12_34n * 10n ** 18n; // 12.34 at the ledger's scale of 20
    for (const [id, balance] of [
      [`liquidity:${asset.id}`, old],
      [`settlement:${asset.id}#3`, -old],
    ] as const)
      await db().send(new PutCommand({ TableName: mem.node.tables.main, Item: { pk: `ACCT#${id}`, sk: 'ACCT', balance } }));
    expect((await getAssetWithLiquidity(mem.node, asset.id)).liquidity.value).toBe('1234');

    expect((await moveLiquidity(mem.node, asset.id, '100000', 'deposit')).liquidity.value).toBe('101234');
    const items = () => mem.db.items(mem.node.tables.main).filter((i) => String(i.pk).startsWith(`ACCT#liquidity:${asset.id}`));
    expect(items().filter((i) => String(i.pk).includes('#', 5) && BigInt(i.balance) > 0n)).toHaveLength(16); // the deposit, over every shard

    // More than any one item holds, then all that is left: from several items, the old one too.
    expect((await moveLiquidity(mem.node, asset.id, '50000', 'withdrawal')).liquidity.value).toBe('51234');
    expect(await refusal(moveLiquidity(mem.node, asset.id, '51235', 'withdrawal'))).toBe('422 insufficient_liquidity');
    expect((await moveLiquidity(mem.node, asset.id, '51234', 'withdrawal')).liquidity.value).toBe('0');
    expect(items().every((i) => BigInt(i.balance) === 0n)).toBe(true);
    expect([...ledgerOf(mem.db).values()].reduce((a, b) => a + b, 0n)).toBe(0n);
  });

  it('paginates with limit and cursor, newest first, visiting every asset once, with no empty last page', async () => {
    // Each a millisecond after the last, as requests are: the list orders by creation time.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      for (const code of ['PAGEA', 'PAGEB', 'PAGEC', 'PAGED', 'PAGEE']) {
        await createAsset(mem.node, { code, scale: 2 });
        vi.advanceTimersByTime(1);
      }
    } finally {
      vi.useRealTimers();
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await listAssets(mem.node, 2, cursor);
      expect(page.items.length).toBeLessThanOrEqual(2);
      expect(page.items.length).toBeGreaterThan(0);
      seen.push(...page.items.map((a) => a.code));
      cursor = page.nextCursor ?? undefined;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toEqual(['PAGEE', 'PAGED', 'PAGEC', 'PAGEB', 'PAGEA']);
  });
});
