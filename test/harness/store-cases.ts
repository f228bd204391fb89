import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, ScanCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { db } from '../../lib/platform/db';
import { event } from '../../lib/platform/events';
import { countUpTo, getAll, LISTS, LISTS2, queryAll, queryNewestFirst } from '../../lib/platform/store';
import { commit, type Refusal, type Write } from '../../lib/platform/tx';
import type { Node } from '../../lib/shared/node';

// Labels for these cases' writes: commit answers whatever a failed write names. They are not declared
// into RefusalsOf, which would let every module of the program (tsc reads test/ too) name them.
type CaseRefusal = 'a_exists' | 'b_exists' | 'c_exists' | 'x' | 'y' | 'free';

// The store cases: what the stores ask of DynamoDB (conditional writes and their refusals,
// transactions all or nothing, index queries newest first with cursors, exact numbers, TTL'd
// counters), in one suite that runs on the in-memory database (test/unit/memory-store.test.ts)
// and on DynamoDB Local (test/integration/store-cases.test.ts). Both must pass it, so both agree.
// Each case works under keys of its own (`k`), so that the cases need no fresh tables.

let n = 0;
const unique = () => `${Date.now().toString(36)}${(++n).toString(36)}${Math.random().toString(36).slice(2, 6)}`;

async function failure(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected the call to fail');
}

export function storeCases(node: () => Node) {
  const main = () => node().tables.main;
  const get = async (pk: string, sk = 'A') => (await db().send(new GetCommand({ TableName: main(), Key: { pk, sk }, ConsistentRead: true }))).Item;

  describe('conditional writes', () => {
    it('a put where none is succeeds once, then fails its condition and changes nothing', async () => {
      const pk = `K#${unique()}`;
      const put = (v: string) => db().send(new PutCommand({ TableName: main(), Item: { pk, sk: 'A', v }, ConditionExpression: 'attribute_not_exists(pk)' }));
      await put('first');
      const e = await failure(put('second'));
      expect(e).toBeInstanceOf(ConditionalCheckFailedException);
      expect(await get(pk)).toEqual({ pk, sk: 'A', v: 'first' });
    });

    // (lib/platform/tx writeAlone knows its own put again by what a failed condition returns.)
    it('a failed put asked for the item returns it as DynamoDB wrote it (its numbers its own way); unasked, not', async () => {
      const pk = `K#${unique()}`;
      const put = (ask: boolean) =>
        db().send(
          new PutCommand({
            TableName: main(),
            Item: { pk, sk: 'A', rate: 5e-7, s: 'x' },
            ConditionExpression: 'attribute_not_exists(pk)',
            ...(ask && { ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const }),
          }),
        );
      await put(true);
      expect(((await failure(put(true))) as ConditionalCheckFailedException).Item).toEqual({
        pk: { S: pk },
        sk: { S: 'A' },
        rate: { N: '0.0000005' },
        s: { S: 'x' },
      });
      expect(((await failure(put(false))) as ConditionalCheckFailedException).Item).toBeUndefined();
    });

    it('an update on a state: SET, if_not_exists with arithmetic, ADD, REMOVE, list_append; its refusal leaves the item', async () => {
      const pk = `K#${unique()}`;
      await db().send(new PutCommand({ TableName: main(), Item: { pk, sk: 'A', state: 'pending', gone: 'x', attempts: [1], token: { hash: 'h1' } } }));
      const move = (from: string, to: string) =>
        db().send(
          new UpdateCommand({
            TableName: main(),
            Key: { pk, sk: 'A' },
            UpdateExpression:
              'SET #state = :to, tries = if_not_exists(tries, :zero) + :one, attempts = list_append(attempts, :more) REMOVE gone ADD held :five',
            ConditionExpression: '#state = :from AND size(attempts) = :made AND #token.#hash = :hash',
            ExpressionAttributeNames: { '#state': 'state', '#token': 'token', '#hash': 'hash' },
            ExpressionAttributeValues: { ':from': from, ':to': to, ':zero': 0, ':one': 1, ':more': [2], ':five': 5, ':made': 1, ':hash': 'h1' },
          }),
        );
      await move('pending', 'sending');
      expect(await get(pk)).toEqual({ pk, sk: 'A', state: 'sending', tries: 1, attempts: [1, 2], held: 5, token: { hash: 'h1' } });
      expect(await failure(move('pending', 'sending'))).toBeInstanceOf(ConditionalCheckFailedException);
      expect((await get(pk))!.state).toBe('sending');
    });

    it('an update where no item is makes one, with its key; a condition on it sees no attributes', async () => {
      const pk = `K#${unique()}`;
      await db().send(
        new UpdateCommand({
          TableName: main(),
          Key: { pk, sk: 'A' },
          UpdateExpression: 'SET balance = if_not_exists(balance, :zero) + :d',
          ConditionExpression: 'attribute_not_exists(pk) OR balance < :max',
          ExpressionAttributeValues: { ':zero': 0, ':d': -3, ':max': 10 },
        }),
      );
      expect(await get(pk)).toEqual({ pk, sk: 'A', balance: -3 });
      // A comparison with an attribute the item lacks is false, but for <>, which is true;
      // a reserved word names an attribute only through ExpressionAttributeNames.
      for (const c of ['absent = :v', 'absent <> :v', 'absent < :v', 'NOT absent = :v', 'absent IN (:v)', 'absent BETWEEN :v AND :v']) {
        const write = db().send(
          new UpdateCommand({
            TableName: main(),
            Key: { pk, sk: 'A' },
            UpdateExpression: 'SET x = :v',
            ConditionExpression: c,
            ExpressionAttributeValues: { ':v': 1 },
          }),
        );
        expect(
          await write.then(
            () => 'written',
            (e: Error) => e.name,
          ),
          c,
        ).toBe(c.startsWith('NOT') || c.includes('<>') ? 'written' : 'ConditionalCheckFailedException');
      }
      const reserved = db().send(
        new UpdateCommand({
          TableName: main(),
          Key: { pk, sk: 'A' },
          UpdateExpression: 'SET x = :v',
          ConditionExpression: 'missing = :v',
          ExpressionAttributeValues: { ':v': 1 },
        }),
      );
      expect(
        await reserved.then(
          () => 'written',
          (e: Error) => e.name,
        ),
      ).toBe('ValidationException');
    });

    it('a delete under a condition: refused, the item stays; met, it goes', async () => {
      const pk = `K#${unique()}`;
      await db().send(new PutCommand({ TableName: main(), Item: { pk, sk: 'A', held: 2 } }));
      const del = () =>
        db().send(
          new DeleteCommand({ TableName: main(), Key: { pk, sk: 'A' }, ConditionExpression: 'held = :none', ExpressionAttributeValues: { ':none': 0 } }),
        );
      expect(await failure(del())).toBeInstanceOf(ConditionalCheckFailedException);
      expect(await get(pk)).toBeDefined();
      await db().send(new UpdateCommand({ TableName: main(), Key: { pk, sk: 'A' }, UpdateExpression: 'ADD held :d', ExpressionAttributeValues: { ':d': -2 } }));
      await del();
      expect(await get(pk)).toBeUndefined();
    });

    it('a counter up to a limit, kept until its TTL: the full count is refused; an expired item may be written over', async () => {
      const pk = `K#${unique()}`;
      const count = () => db().send(new UpdateCommand({ TableName: main(), Key: { pk, sk: 'A' }, ...countUpTo(2, Math.floor(Date.now() / 1000) + 60) }));
      await count();
      await count();
      expect(await failure(count())).toBeInstanceOf(ConditionalCheckFailedException);
      expect((await get(pk))!.n).toBe(2);
      const now = Math.floor(Date.now() / 1000);
      const claim = (ttl: number) =>
        db().send(
          new PutCommand({
            TableName: main(),
            Item: { pk, sk: 'B', ttl },
            ConditionExpression: 'attribute_not_exists(pk) OR #ttl <= :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':now': now },
          }),
        );
      await claim(now - 1);
      await claim(now + 60); // the first has expired (DynamoDB deletes late; the condition decides)
      expect(await failure(claim(now + 120))).toBeInstanceOf(ConditionalCheckFailedException);
    });

    it('refuses what DynamoDB refuses: an unused value, a key attribute updated, one item twice in a transaction', async () => {
      const pk = `K#${unique()}`;
      const unused = await failure(
        db().send(
          new PutCommand({ TableName: main(), Item: { pk, sk: 'A' }, ConditionExpression: 'attribute_not_exists(pk)', ExpressionAttributeValues: { ':x': 1 } }),
        ),
      );
      expect(unused.name).toBe('ValidationException');
      const key = await failure(
        db().send(new UpdateCommand({ TableName: main(), Key: { pk, sk: 'A' }, UpdateExpression: 'SET sk = :x', ExpressionAttributeValues: { ':x': 'B' } })),
      );
      expect(key.name).toBe('ValidationException');
      const twice = await failure(
        db().send(
          new TransactWriteCommand({
            TransactItems: [{ Put: { TableName: main(), Item: { pk, sk: 'A' } } }, { Delete: { TableName: main(), Key: { pk, sk: 'A' } } }],
          }),
        ),
      );
      expect(twice.name).toBe('ValidationException');
      expect(await get(pk)).toBeUndefined();
    });
  });

  describe('transactions (commit)', () => {
    it('take at most 100 writes: 101 are refused whole, 100 are written', async () => {
      const base = unique();
      const puts = (count: number) =>
        Array.from({ length: count }, (_, i) => ({ Put: { TableName: main(), Item: { pk: `K#${base}#${count}#${i}`, sk: 'A' } } }));
      expect((await failure(db().send(new TransactWriteCommand({ TransactItems: puts(101) })))).name).toBe('ValidationException');
      expect(await get(`K#${base}#101#0`)).toBeUndefined();
      await db().send(new TransactWriteCommand({ TransactItems: puts(100) }));
      expect(await get(`K#${base}#100#99`)).toBeDefined();
    });

    const put = (pk: string, label: CaseRefusal): Write => ({
      Put: { TableName: main(), Item: { pk, sk: 'A' }, ConditionExpression: 'attribute_not_exists(pk)' },
      refusal: label as unknown as Refusal,
    });

    it('one failed condition leaves nothing written, outbox included, and names the failed write', async () => {
      const [a, b, c] = [`K#${unique()}`, `K#${unique()}`, `K#${unique()}`];
      await db().send(new PutCommand({ TableName: main(), Item: { pk: b, sk: 'A', mark: 'there' } }));
      const refusals = await commit(node(), [put(a, 'a_exists'), put(b, 'b_exists'), put(c, 'c_exists')], [event(a, 'test.event', { a })]);
      expect(refusals).toEqual(['b_exists']);
      expect(await get(a)).toBeUndefined();
      expect(await get(c)).toBeUndefined();
      expect(await get(b)).toEqual({ pk: b, sk: 'A', mark: 'there' });
      const outbox = await queryAll({ TableName: main(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': a } });
      expect(outbox).toEqual([]);
    });

    it('names every failed write, by its refusal, and the reasons by item in the exception', async () => {
      const [a, b] = [`K#${unique()}`, `K#${unique()}`];
      await commit(node(), [put(a, 'x'), put(b, 'y')]);
      expect(await commit(node(), [put(a, 'a_exists'), put(`K#${unique()}`, 'free'), put(b, 'b_exists')])).toEqual(['a_exists', 'b_exists']);
      const e = await failure(
        db().send(
          new TransactWriteCommand({
            TransactItems: [
              { ConditionCheck: { TableName: main(), Key: { pk: a, sk: 'A' }, ConditionExpression: 'attribute_exists(pk)' } },
              { Put: { TableName: main(), Item: { pk: b, sk: 'A' }, ConditionExpression: 'attribute_not_exists(pk)' } },
            ],
          }),
        ),
      );
      expect(e).toBeInstanceOf(TransactionCanceledException);
      expect((e as TransactionCanceledException).CancellationReasons?.map((r) => r.Code)).toEqual(['None', 'ConditionalCheckFailed']);
    });

    it('all succeed: every write and the outbox item are there; a lone write is refused by name too', async () => {
      const [a, b] = [`K#${unique()}`, `K#${unique()}`];
      expect(await commit(node(), [put(a, 'a_exists'), put(b, 'b_exists')], [event(a, 'test.event', { a })])).toEqual([]);
      expect(await get(a)).toBeDefined();
      const outbox = await queryAll({
        TableName: main(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :out)',
        ExpressionAttributeValues: { ':pk': a, ':out': 'OUT#' },
      });
      expect(outbox.map((o) => JSON.parse(o.out)[0].event.type)).toEqual(['test.event']);
      expect(await commit(node(), [put(b, 'b_exists')])).toEqual(['b_exists']);
    });
  });

  describe('numbers', () => {
    it('whole numbers past 2^53 are exact bigints, added to exactly; others are numbers; more than 38 digits are refused', async () => {
      const pk = `K#${unique()}`;
      const big = 10n ** 30n + 1n;
      await db().send(new PutCommand({ TableName: main(), Item: { pk, sk: 'A', balance: big, small: 7, rate: 0.9, text: '12' } }));
      await db().send(
        new UpdateCommand({ TableName: main(), Key: { pk, sk: 'A' }, UpdateExpression: 'ADD balance :d', ExpressionAttributeValues: { ':d': 2n ** 60n } }),
      );
      const item = await get(pk);
      expect(item).toEqual({ pk, sk: 'A', balance: big + 2n ** 60n, small: 7, rate: 0.9, text: '12' });
      const refused = await failure(
        db().send(
          new UpdateCommand({
            TableName: main(),
            Key: { pk, sk: 'A' },
            UpdateExpression: 'SET balance = balance + :d',
            ExpressionAttributeValues: { ':d': 10n ** 38n },
          }),
        ),
      );
      expect(refused.name).toBe('ValidationException');
      // A bigint compares as a number, in a condition and a scan's filter.
      await db().send(
        new UpdateCommand({
          TableName: main(),
          Key: { pk, sk: 'A' },
          UpdateExpression: 'SET small = :s',
          ConditionExpression: 'balance > :b AND balance <> :zero',
          ExpressionAttributeValues: { ':s': 8, ':b': big, ':zero': 0n },
        }),
      );
      const scanned = await db().send(
        new ScanCommand({
          TableName: main(),
          FilterExpression: 'begins_with(pk, :pk) AND balance <> :zero',
          ProjectionExpression: 'pk, balance',
          ExpressionAttributeValues: { ':pk': pk, ':zero': 0 },
          ConsistentRead: true,
        }),
      );
      expect(scanned.Items).toEqual([{ pk, balance: big + 2n ** 60n }]);
    });
  });

  describe('queries', () => {
    // Items listed under two partitions of Lists (and, credit-side, Lists2), created a millisecond apart.
    async function listed(count: number) {
      const base = unique();
      const parts = [`L#${base}#0`, `L#${base}#1`];
      const made: { id: string; listSk: string }[] = [];
      for (let i = 0; i < count; i++) {
        const id = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        const listSk = `${new Date(Date.UTC(2026, 0, 1, 0, 0, 0, i)).toISOString()}#${id}`;
        made.push({ id, listSk });
        await db().send(
          new PutCommand({
            TableName: main(),
            Item: {
              pk: `I#${base}#${id}`,
              sk: 'A',
              listPk: parts[i % 2],
              listSk,
              list2Pk: `C#${base}`,
              kind: i % 3 ? 'odd' : 'third',
              amount: BigInt(i),
              note: 'n',
            },
          }),
        );
      }
      return { base, parts, made: made.reverse() }; // newest first
    }

    it('a collection over partitions, newest first, page by page with cursors to the end', async () => {
      const { parts, made } = await listed(7);
      const seen: string[] = [];
      let cursor: string | undefined;
      for (;;) {
        const page = await queryNewestFirst({ table: main(), ...LISTS, partitions: parts, limit: 3, cursor });
        seen.push(...page.items.map((i) => i.listSk));
        if (!page.nextCursor) break;
        cursor = page.nextCursor;
      }
      expect(seen).toEqual(made.map((m) => m.listSk));
    });

    it('with a filter, each partition read on until the page is full', async () => {
      const { parts, made } = await listed(9);
      const page = await queryNewestFirst({
        table: main(),
        ...LISTS,
        partitions: parts,
        limit: 2,
        filter: { expression: '#kind = :kind', names: { '#kind': 'kind' }, values: { ':kind': 'third' } },
      });
      expect(page.items.map((i) => i.listSk)).toEqual(
        made
          .filter((_, k) => (made.length - 1 - k) % 3 === 0)
          .map((m) => m.listSk)
          .slice(0, 2),
      );
      expect(page.nextCursor).not.toBeNull();
    });

    it("an index answers its projection: Lists2 the attributes it includes, the table's and its keys, not the rest", async () => {
      const { base, made } = await listed(2);
      const page = await queryNewestFirst({ table: main(), ...LISTS2, partitions: [`C#${base}`], limit: 5 });
      expect(page.items.map((i) => i.listSk)).toEqual(made.map((m) => m.listSk));
      expect(Object.keys(page.items[0]).sort()).toEqual(['amount', 'kind', 'list2Pk', 'listSk', 'pk', 'sk']);
      expect(page.items[1].amount).toBe(0);
    });

    it('a range of sort keys (BETWEEN), begins_with, and Limit with LastEvaluatedKey', async () => {
      const { parts, made } = await listed(6);
      const inRange = await db().send(
        new QueryCommand({
          TableName: main(),
          IndexName: LISTS.index,
          KeyConditionExpression: 'listPk = :pk AND listSk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': parts[0], ':from': made[4].listSk, ':to': made[1].listSk },
          ScanIndexForward: false,
        }),
      );
      // parts[0] holds the even ones: of made[1..4] (ids 4, 3, 2, 1), ids 4 and 2.
      expect(inRange.Items!.map((i) => i.listSk)).toEqual([made[1].listSk, made[3].listSk]);
      const pk = `K#${unique()}`;
      for (const sk of ['OUT#1', 'OUT#2', 'OUT#3', 'PKT#1']) await db().send(new PutCommand({ TableName: main(), Item: { pk, sk } }));
      const first = await db().send(
        new QueryCommand({
          TableName: main(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': pk, ':p': 'OUT#' },
          Limit: 2,
        }),
      );
      expect(first.Items!.map((i) => i.sk)).toEqual(['OUT#1', 'OUT#2']);
      expect(first.LastEvaluatedKey).toEqual({ pk, sk: 'OUT#2' });
      const rest = await db().send(
        new QueryCommand({
          TableName: main(),
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': pk, ':p': 'OUT#' },
          ExclusiveStartKey: first.LastEvaluatedKey,
        }),
      );
      expect(rest.Items!.map((i) => i.sk)).toEqual(['OUT#3']);
      expect(rest.LastEvaluatedKey).toBeUndefined();
      expect((await queryAll({ TableName: main(), KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, Limit: 1 })).length).toBe(4);
    });

    it('a sparse keys-only index by expiry; a key condition on a non-key attribute or a filter on a key is refused', async () => {
      const open = `OPEN#${unique()}`;
      for (const [id, at] of [
        ['a', '2026-01-01T00:00:01.000Z'],
        ['b', '2026-01-01T00:00:03.000Z'],
      ])
        await db().send(new PutCommand({ TableName: main(), Item: { pk: `X#${open}#${id}`, sk: 'A', openPk: open, openExpiresAt: at, secret: 's' } }));
      await db().send(new PutCommand({ TableName: main(), Item: { pk: `X#${open}#c`, sk: 'A', secret: 's' } }));
      const due = await db().send(
        new QueryCommand({
          TableName: main(),
          IndexName: 'OpenIntents',
          KeyConditionExpression: 'openPk = :open AND openExpiresAt <= :now',
          ExpressionAttributeValues: { ':open': open, ':now': '2026-01-01T00:00:02.000Z' },
        }),
      );
      expect(due.Items).toEqual([{ pk: `X#${open}#a`, sk: 'A', openPk: open, openExpiresAt: '2026-01-01T00:00:01.000Z' }]);
      const onValue = await failure(
        db().send(
          new QueryCommand({ TableName: main(), KeyConditionExpression: 'pk = :pk AND secret = :s', ExpressionAttributeValues: { ':pk': open, ':s': 's' } }),
        ),
      );
      expect(onValue.name).toBe('ValidationException');
      const filterOnKey = await failure(
        db().send(
          new QueryCommand({
            TableName: main(),
            KeyConditionExpression: 'pk = :pk',
            FilterExpression: 'sk = :s',
            ExpressionAttributeValues: { ':pk': open, ':s': 'A' },
          }),
        ),
      );
      expect(filterOnKey.name).toBe('ValidationException');
    });

    it('a batch read answers the items in the order of the keys, leaving out the missing', async () => {
      const [a, b] = [`K#${unique()}`, `K#${unique()}`];
      await db().send(new PutCommand({ TableName: main(), Item: { pk: a, sk: 'A', v: 1 } }));
      await db().send(new PutCommand({ TableName: main(), Item: { pk: b, sk: 'A', v: 2 } }));
      const found = await getAll(main(), [
        { pk: b, sk: 'A' },
        { pk: `K#${unique()}`, sk: 'A' },
        { pk: a, sk: 'A' },
      ]);
      expect(found.map((i) => i.v)).toEqual([2, 1]);
      const projected = await getAll(main(), [{ pk: a, sk: 'A' }], { ProjectionExpression: 'pk, sk', ConsistentRead: true });
      expect(projected).toEqual([{ pk: a, sk: 'A' }]);
    });
  });
}
