import { BatchGetCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type Database, db, useDatabase } from '../../lib/platform/db';
import { readTogether } from '../../lib/platform/store';
import { inMemory } from '../harness/in-memory';

// Reads made together (lib/platform/store.ts readTogether): the GetItems sent at about one moment go as
// one BatchGetItem a table, and each caller gets what its own GetItem would have answered.
const mem = inMemory();

// The database in use, noting the name of every command sent to it.
function noting() {
  const sent: string[] = [];
  const inner = db();
  const outer: Database = {
    send: ((command: { constructor: { name: string } }) => {
      sent.push(command.constructor.name);
      return inner.send(command as never);
    }) as Database['send'],
  };
  useDatabase(outer);
  return sent;
}

describe('readTogether', () => {
  it('answers each read as its own GetItem would, in one BatchGetItem: a missing item, the same key twice, a projection', async () => {
    const table = mem.node.tables.main;
    for (const pk of ['A', 'B']) await db().send(new PutCommand({ TableName: table, Item: { pk, sk: 'X', status: 'active', other: pk } }));
    const get = (pk: string, more: object = {}) => db().send(new GetCommand({ TableName: table, Key: { pk, sk: 'X' }, ConsistentRead: true, ...more }));
    const sent = noting();
    const [a, missing, again, projected] = await readTogether(() =>
      Promise.all([
        get('A'),
        get('none'),
        Promise.resolve().then(() => get('A')),
        get('B', { ProjectionExpression: '#s', ExpressionAttributeNames: { '#s': 'status' } }),
      ]),
    );
    expect(sent).toEqual([BatchGetCommand.name]);
    expect(a.Item).toEqual({ pk: 'A', sk: 'X', status: 'active', other: 'A' });
    expect(missing.Item).toBeUndefined();
    expect(again.Item).toEqual(a.Item);
    expect(projected.Item?.status).toBe('active'); // the whole item: the same read units
  });

  it('sends a lone read as it was, and reads outside a scope one by one', async () => {
    const table = mem.node.tables.main;
    const get = (pk: string) => db().send(new GetCommand({ TableName: table, Key: { pk, sk: 'X' }, ConsistentRead: true }));
    const sent = noting();
    await readTogether(async () => {
      await get('A');
      await get('B'); // after the first answered: alone too
    });
    await Promise.all([get('A'), get('B')]);
    expect(sent).toEqual(Array(4).fill(GetCommand.name));
  });
});
