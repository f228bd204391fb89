import { PutItemCommand } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../harness/stack';
import { ledger, ledgerItems, sum } from '../harness/world';

let s: TestStack;
beforeAll(async () => {
  s = await startTestStack();
});
afterAll(() => s.stop());

describe('assets', () => {
  it('creates an asset and reads it back by id', async () => {
    const res = await s.admin('POST', '/assets', { code: 'USD', scale: 2 });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), code: 'USD', scale: 2, createdAt: expect.any(String) });
    expect(Object.keys(res.body)).toEqual(['id', 'code', 'scale', 'createdAt']);
    const got = await s.admin('GET', `/assets/${res.body.id}`);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...res.body, liquidity: { value: '0', assetCode: 'USD', assetScale: 2 } });
  });

  it('refuses a second asset with the same code with 409', async () => {
    await s.admin('POST', '/assets', { code: 'GBP', scale: 2 });
    const again = await s.admin('POST', '/assets', { code: 'GBP', scale: 3 });
    expect(again.status).toBe(409);
    expect(again.headers.get('content-type')).toBe('application/problem+json');
    expect(again.body).toMatchObject({ status: 409, code: 'asset_exists', title: 'Conflict' });
  });

  it('lets exactly one of a dozen racing creations of one code win', async () => {
    // Bodies differ (scale) so that each request has its own signature; the code is the same.
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => s.admin('POST', '/assets', { code: 'RACE1', scale: i })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 201)).toHaveLength(1);
    expect(statuses.filter((x) => x === 409)).toHaveLength(11);
    const listed = await s.admin('GET', '/assets?limit=100');
    expect(listed.body.items.filter((a: { code: string }) => a.code === 'RACE1')).toHaveLength(1);
  });

  it('spreads liquidity over shards, shows one balance, and counts and takes what an unsplit account held', async () => {
    const asset = (await s.admin('POST', '/assets', { code: 'SHRD', scale: 2 })).body;
    // What a node from before accounts were split holds: the whole balance in the account's own
    // item, against a shard of the settlement account (as its deposit booked it).
    const old = 12_34n * 10n ** 18n; // 12.34 at the ledger's scale of 20
    for (const [id, balance] of [
      [`liquidity:${asset.id}`, old],
      [`settlement:${asset.id}#3`, -old],
    ] as const)
      await s.dynamo.send(
        new PutItemCommand({ TableName: s.env.MAIN_TABLE, Item: { pk: { S: `ACCT#${id}` }, sk: { S: 'ACCT' }, balance: { N: String(balance) } } }),
      );
    expect((await s.admin('GET', `/assets/${asset.id}`)).body.liquidity.value).toBe('1234');

    expect((await s.admin('POST', `/assets/${asset.id}/liquidity`, { amount: '100000' })).body.liquidity.value).toBe('101234');
    const shards = [...(await ledgerItems(s))].filter(([id, balance]) => id.startsWith(`liquidity:${asset.id}#`) && balance > 0n);
    expect(shards).toHaveLength(16); // the deposit, over every shard

    // More than any one item holds, then all that is left: from several items, the old one too.
    expect((await s.admin('POST', `/assets/${asset.id}/liquidity-withdrawals`, { amount: '50000' })).body.liquidity.value).toBe('51234');
    const refused = await s.admin('POST', `/assets/${asset.id}/liquidity-withdrawals`, { amount: '51235' });
    expect(refused.body).toMatchObject({ status: 422, code: 'insufficient_liquidity' });
    expect((await s.admin('POST', `/assets/${asset.id}/liquidity-withdrawals`, { amount: '51234' })).body.liquidity.value).toBe('0');
    const left = [...(await ledgerItems(s))].filter(([id]) => id.startsWith(`liquidity:${asset.id}`));
    expect(left.every(([, balance]) => balance === 0n)).toBe(true);
    expect(sum(await ledger(s))).toBe(0n);
  });

  it('validates code and scale, naming the field', async () => {
    for (const [body, field] of [
      [{ code: 'us', scale: 2 }, 'code'],
      [{ code: 'AB', scale: 2 }, 'code'],
      [{ code: 'ABCDEFGHIJKLM', scale: 2 }, 'code'],
      [{ code: 'EUR', scale: 256 }, 'scale'],
      [{ code: 'EUR', scale: -1 }, 'scale'],
      [{ code: 'EUR', scale: 1.5 }, 'scale'],
      [{ code: 'EUR', scale: '2' }, 'scale'],
      [{ code: 'EUR' }, 'scale'],
      [{ code: 'EUR', scale: 2, colour: 'red' }, 'colour'],
    ] as const) {
      const res = await s.admin('POST', '/assets', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
    }
    const listed = await s.admin('GET', '/assets?limit=100');
    expect(listed.body.items.map((a: { code: string }) => a.code)).not.toContain('EUR');
  });

  it('accepts the edges of the allowed ranges', async () => {
    expect((await s.admin('POST', '/assets', { code: 'ABC', scale: 0 })).status).toBe(201);
    expect((await s.admin('POST', '/assets', { code: 'ABCDEFGHIJ12', scale: 255 })).status).toBe(201);
  });

  it('paginates with limit and cursor, newest first, visiting every asset once, with no empty last page', async () => {
    for (const code of ['PAGEA', 'PAGEB', 'PAGEC', 'PAGED', 'PAGEE']) await s.admin('POST', '/assets', { code, scale: 2 });
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: Awaited<ReturnType<TestStack['admin']>> = await s.admin('GET', `/assets?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      expect(res.body.items.length).toBeGreaterThan(0);
      seen.push(...res.body.items.map((a: { code: string }) => a.code));
      cursor = res.body.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((code) => code.startsWith('PAGE'))).toEqual(['PAGEE', 'PAGED', 'PAGEC', 'PAGEB', 'PAGEA']);
  });

  it('rejects a bad limit or a forged cursor with 400', async () => {
    expect((await s.admin('GET', '/assets?limit=0')).status).toBe(400);
    expect((await s.admin('GET', '/assets?limit=101')).status).toBe(400);
    expect((await s.admin('GET', '/assets?limit=abc')).status).toBe(400);
    const forged = Buffer.from(JSON.stringify({ pk: 'WA#x', sk: 'WA' })).toString('base64url');
    const res = await s.admin('GET', `/assets?cursor=${forged}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 'invalid_cursor', errors: [{ field: 'query.cursor' }] });
    expect((await s.admin('GET', '/assets?cursor=%%%')).status).toBe(400);
    const empty = Buffer.from(JSON.stringify({ after: '' })).toString('base64url');
    expect((await s.admin('GET', `/assets?cursor=${empty}`)).status).toBe(400);
    expect((await s.admin('GET', '/assets?colour=red')).status).toBe(400);
  });

  it('answers 404 for an unknown or impossible id', async () => {
    const unknown = await s.admin('GET', '/assets/3f1c2b9e-8a47-4c51-9d0e-2b7a6f5e4d3c');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('asset_not_found');
    expect((await s.admin('GET', '/assets/not-a-uuid')).status).toBe(404);
  });
});
