import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient, GetCommand, type TranslateConfig } from '@aws-sdk/lib-dynamodb';
import { counted } from './aws';

// The one DynamoDB client of this container, created on first use. Whole numbers past 2^53 (ledger
// balances, at scale 20) are read as exact bigints; every other number as a JS number.
let raw: DynamoDBClient | undefined;
let doc: DynamoDBDocumentClient | undefined;

const sdkClient = () => (raw ??= counted(new DynamoDBClient({}), 'DynamoDB'));

const exactNumber = (text: string): number | bigint => {
  const n = Number(text);
  return Number.isSafeInteger(n) || !/^-?\d+$/.test(text) ? n : BigInt(text);
};

// How items and expression values turn into DynamoDB's attribute values and back: the document
// client's, and the in-memory database's (test/harness/memory-db), so that both read numbers alike.
export const translation = {
  marshallOptions: { removeUndefinedValues: true },
  unmarshallOptions: { wrapNumbers: exactNumber },
} satisfies TranslateConfig;

// What every store reaches the database through: the document client's `send`, of its commands
// (GetCommand, QueryCommand, TransactWriteCommand...). On Lambda and on the emulators it is the
// client above, on the wire as ever; a test may put the in-memory database in its place
// (`useDatabase(memoryDatabase())`, test/harness/memory-db), which production code never imports.
export type Database = Pick<DynamoDBDocumentClient, 'send'>;
let chosen: Database | undefined;
let chosenForLibraries: DynamoDBClient | undefined;

const dynamo = () => (doc ??= DynamoDBDocumentClient.from(sdkClient(), translation));
export const db = (): Database => {
  const database = chosen ?? dynamo();
  const scope = together.getStore();
  return scope ? batching(database, scope) : database;
};

// The database of this process from now on; undefined: DynamoDB again. `forLibraries`: the SDK's
// own client that reaches it, for the libraries that take one (a test's, over its database).
export function useDatabase(database: Database | undefined, forLibraries?: DynamoDBClient): void {
  chosen = database;
  chosenForLibraries = forLibraries;
}

// The same client, unwrapped, for a library that takes the SDK's own (Powertools idempotency).
export const dynamoForLibraries = () => chosenForLibraries ?? sdkClient();

// Reads made together: within `readTogether(fn)`, the GetCommands that fn's work sends at about the
// same moment (before the event loop next turns: a Promise.all of independent reads, each a few
// promise steps deep in its own domain) go as one BatchGetItem per table, one round trip instead of
// one each; a lone one goes as it was. Consistency is kept (a batch reads consistently when its reads
// asked so), and so is each read's answer ({ Item }, or none), but for a projection: a batched read
// answers the whole item (which costs the same read units up to 4 KB). Only this scope's reads are
// batched, so one invocation's reads never wait on, or fail with, another's.
interface Waiting {
  command: GetCommand;
  done: (output: { Item?: Record<string, any> }) => void;
  failed: (e: unknown) => void;
}
const together = new AsyncLocalStorage<{ waiting: Waiting[] }>();

export const readTogether = <T>(fn: () => Promise<T>): Promise<T> => together.run({ waiting: [] }, fn);

function batching(database: Database, scope: { waiting: Waiting[] }): Database {
  return {
    send: ((command: { input: unknown }) => {
      if (!(command instanceof GetCommand)) return database.send(command as never);
      const get = command;
      return new Promise<{ Item?: Record<string, any> }>((done, failed) => {
        if (!scope.waiting.length) setImmediate(() => flush(database, scope.waiting.splice(0)));
        scope.waiting.push({ command: get, done, failed });
      });
    }) as Database['send'],
  };
}

const BATCH_GET_MAX = 100; // BatchGetItem's limit; a scope makes a few reads at once

function flush(database: Database, waiting: Waiting[]): void {
  const groups = new Map<string, Waiting[]>();
  for (const w of waiting) {
    const group = `${w.command.input.TableName}\u0000${w.command.input.ConsistentRead === true}`;
    groups.set(group, [...(groups.get(group) ?? []), w]);
  }
  for (const group of groups.values()) {
    if (group.length === 1 || group.length > BATCH_GET_MAX) {
      for (const { command, done, failed } of group) database.send(command).then(done, failed);
      continue;
    }
    const { TableName, ConsistentRead } = group[0].command.input;
    const keys = group.map((w) => w.command.input.Key as Record<string, string>);
    batchGet(database, TableName!, keys, ConsistentRead).then(
      (items) => {
        for (const [i, w] of group.entries()) w.done({ Item: items[i] });
      },
      (e) => {
        for (const w of group) w.failed(e);
      },
    );
  }
}

// The item at each key (undefined where none), in one BatchGetItem, the keys it leaves unprocessed
// (under throttling) read one by one.
async function batchGet(database: Database, table: string, keys: Record<string, string>[], ConsistentRead?: boolean) {
  const id = (k: Record<string, unknown>, names: string[]) => names.map((name) => k[name]).join('\u0000');
  const distinct = [...new Map(keys.map((k) => [id(k, Object.keys(k)), k])).values()];
  const res = await database.send(new BatchGetCommand({ RequestItems: { [table]: { Keys: distinct, ConsistentRead } } }));
  const found = res.Responses?.[table] ?? [];
  const unprocessed = (res.UnprocessedKeys?.[table]?.Keys ?? []) as Record<string, string>[];
  const again = await Promise.all(unprocessed.map(async (Key) => (await database.send(new GetCommand({ TableName: table, Key, ConsistentRead }))).Item));
  const items = [...found, ...again.filter((i) => i !== undefined)];
  return keys.map((k) => items.find((item) => id(item, Object.keys(k)) === id(k, Object.keys(k))));
}
