import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '../../infra/local/emulators/emulators';
import { db, translation, useDatabase } from '../../lib/platform/db';
import { dynamoOverHttp } from '../../lib/platform/dynamodb-http';
import { authorScope, commit, rideAlong, riderScope, setAuthor, untakenRider } from '../../lib/platform/tx';
import { fileEmulators } from '../harness/emulators';
import { declaredTables, testNode } from '../harness/in-memory';

// A create's one write goes alone, not in a transaction, even when it holds the Admin API
// signature's replay guard (lib/platform/tx writeAlone): on DynamoDB Local, through a proxy that can
// lose an answer after DynamoDB has written, as a network can, so that the sender retries a put that
// is already there.
describe('a lone put that holds a replay guard', () => {
  const prefix = `l${randomBytes(4).toString('hex')}-`;
  const node = testNode({ MAIN_TABLE: `${prefix}MainTable` });
  let proxy: Server;
  let loseNextPutAnswer = false;
  const seen: string[] = [];

  beforeAll(async () => {
    const { dynamodb } = await fileEmulators();
    const target = new URL(dynamodb);
    const client = new DynamoDBClient({ endpoint: dynamodb, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    const main = declaredTables(prefix)[node.tables.main];
    await client.send(
      new CreateTableCommand({
        TableName: node.tables.main,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: main.AttributeDefinitions,
        KeySchema: main.KeySchema,
        GlobalSecondaryIndexes: main.GlobalSecondaryIndexes,
      }),
    );
    proxy = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const operation = String(req.headers['x-amz-target']).split('.').pop()!;
      seen.push(operation);
      const lose = operation === 'PutItem' && loseNextPutAnswer;
      if (lose) loseNextPutAnswer = false;
      const forwarded = request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, async (answer) => {
        const body: Buffer[] = [];
        for await (const c of answer) body.push(c as Buffer);
        // DynamoDB wrote it; its answer never arrives.
        if (lose) return req.socket.destroy();
        res.writeHead(answer.statusCode!, answer.headers).end(Buffer.concat(body));
      });
      forwarded.end(Buffer.concat(chunks));
    }).listen(0);
    await once(proxy, 'listening');
    const { port } = proxy.address() as AddressInfo;
    const viaProxy = new DynamoDBClient({ endpoint: `http://127.0.0.1:${port}`, region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS });
    useDatabase(dynamoOverHttp(viaProxy, translation) as never);
  });
  afterAll(() => {
    useDatabase(undefined);
    proxy?.close();
  });
  beforeEach(() => {
    seen.length = 0;
  });

  // A quote's put, and the guard its signed request rides along with: the same key, on the same
  // condition, so that the quote's put holds it (lib/platform/tx holds). Each request has an author
  // of its own, as lib/api/http/admin.ts names it: the stamp on the quote names its request's id.
  const quote = (id: string, rate: number) => ({
    Put: { TableName: node.tables.main, Item: { pk: `QUOTE#${id}`, sk: 'QUOTE', id, rate }, ConditionExpression: 'attribute_not_exists(pk)' },
  });
  const guard = (id: string) => ({
    Put: { TableName: node.tables.main, Item: { pk: `QUOTE#${id}`, sk: 'QUOTE' }, ConditionExpression: 'attribute_not_exists(pk)' },
  });
  class Replayed extends Error {}
  const guarded = <T>(id: string, work: () => Promise<T>) =>
    authorScope(() =>
      riderScope(async () => {
        setAuthor({ actor: { kind: 'key', name: 'operator' }, action: 'POST /quotes', requestId: randomBytes(8).toString('hex') });
        rideAlong('signature', { write: () => guard(id), refused: () => new Replayed() });
        const result = await work();
        return { result, guardLeft: untakenRider('signature') !== undefined };
      }),
    );
  const stored = async (id: string) => (await db().send(new GetCommand({ TableName: node.tables.main, Key: { pk: `QUOTE#${id}`, sk: 'QUOTE' } }))).Item;

  it('is one PutItem, no transaction, and its guard is taken', async () => {
    const id = randomBytes(8).toString('hex');
    expect(await guarded(id, () => commit(node, [quote(id, 0.5)]))).toEqual({ result: [], guardLeft: false });
    expect(seen).toEqual(['PutItem']);
    expect(await stored(id)).toMatchObject({ id, rate: 0.5 });
  });

  // DynamoDB writes numbers its own way (5e-7 comes back as 0.0000005): its own item is known by its
  // stamp, not by its every byte.
  it.each([0.5, 5e-7])('whose answer was lost: the retry finds its own item (a rate of %s), and the put succeeded', async (rate) => {
    const id = randomBytes(8).toString('hex');
    loseNextPutAnswer = true;
    expect(await guarded(id, () => commit(node, [quote(id, rate)]))).toEqual({ result: [], guardLeft: false });
    expect(seen).toEqual(['PutItem', 'PutItem']);
    expect(await stored(id)).toMatchObject({ id, rate });
  });

  it("finding another request's item there (a replay of its signature): the guard's refusal, and nothing changed", async () => {
    const id = randomBytes(8).toString('hex');
    await guarded(id, () => commit(node, [quote(id, 0.5)]));
    // The same item but for its stamp, whose request is another.
    await expect(guarded(id, () => commit(node, [quote(id, 0.5)]))).rejects.toBeInstanceOf(Replayed);
    // Even when its own answer was lost first: what its retry finds is the first request's.
    loseNextPutAnswer = true;
    await expect(guarded(id, () => commit(node, [quote(id, 0.9)]))).rejects.toBeInstanceOf(Replayed);
    expect(await stored(id)).toMatchObject({ id, rate: 0.5 });
  });

  // A signed request whose work writes nothing of its own: its guard is the one write, an item that
  // carries no stamp, the same for every replay of its signature.
  it('a guard written alone: its replay is refused', async () => {
    const id = randomBytes(8).toString('hex');
    expect(await guarded(id, () => commit(node, []))).toEqual({ result: [], guardLeft: false });
    await expect(guarded(id, () => commit(node, []))).rejects.toBeInstanceOf(Replayed);
  });

  it('with no guard to hold, a put that finds another item there is refused by name', async () => {
    const id = randomBytes(8).toString('hex');
    await commit(node, [quote(id, 0.5)]);
    expect(await commit(node, [{ ...quote(id, 0.5), refusal: 'quote_taken' }])).toEqual(['quote_taken']);
  });
});
