import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient, TranslateConfig } from '@aws-sdk/lib-dynamodb';
import { counted } from './aws';
import { dynamoOverHttp } from './dynamodb-http';

// The one DynamoDB client of this container, created on first use. Whole numbers past 2^53 (ledger
// balances, at scale 20) are read as exact bigints; every other number as a JS number.
let raw: DynamoDBClient | undefined;
let doc: Database | undefined;

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
// (GetCommand, QueryCommand, TransactWriteCommand...). On Lambda and on the emulators it is
// ./dynamodb-http, which sends them on DynamoDB's wire without the SDK's middleware; a test may put the in-memory database in its place
// (`useDatabase(memoryDatabase())`, test/harness/memory-db), which production code never imports.
export type Database = Pick<DynamoDBDocumentClient, 'send'>;
let chosen: Database | undefined;
let chosenForLibraries: DynamoDBClient | undefined;

const dynamo = () => (doc ??= unstamped(dynamoOverHttp(sdkClient(), translation) as Database));
export const db = (): Database => {
  const database = chosen ?? dynamo();
  const wrap = wrapping.getStore();
  return wrap ? wrap(database) : database;
};

// Within `wrapping.run(wrap, fn)`, what fn's work sends goes through `wrap` (readTogether,
// ./store.ts, which batches reads made together).
export const wrapping = new AsyncLocalStorage<(database: Database) => Database>();

// The audit stamp (lib/platform/tx CHANGED_BY) is for the table's stream: no store reads it, so
// that no record, and no answer made of one, carries it. Every database is chosen through this.
export const CHANGED_BY = 'changedBy';
const unstamped = (d: Database): Database => ({
  send: (async (command: any, ...rest: any[]) => withoutStamps(await (d.send as any)(command, ...rest))) as Database['send'],
});
function withoutStamps<T>(out: T): T {
  const o = out as { Item?: any; Items?: any[]; Attributes?: any; Responses?: any };
  const strip = (item: any) => item && delete item[CHANGED_BY];
  strip(o?.Item);
  strip(o?.Attributes);
  o?.Items?.forEach(strip);
  if (Array.isArray(o?.Responses)) for (const r of o.Responses) strip(r?.Item);
  else if (o?.Responses) for (const items of Object.values(o.Responses) as any[][]) items.forEach(strip);
  return out;
}

// The database of this process from now on; undefined: DynamoDB again. `forLibraries`: the SDK's
// own client that reaches it, for the libraries that take one (a test's, over its database).
export function useDatabase(database: Database | undefined, forLibraries?: DynamoDBClient): void {
  chosen = database && unstamped(database);
  chosenForLibraries = forLibraries;
}

// The same client, unwrapped, for a library that takes the SDK's own (Powertools idempotency).
export const dynamoForLibraries = () => chosenForLibraries ?? sdkClient();
