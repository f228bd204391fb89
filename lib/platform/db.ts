import { AsyncLocalStorage } from 'node:async_hooks';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, type TranslateConfig } from '@aws-sdk/lib-dynamodb';
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
  const wrap = wrapping.getStore();
  return wrap ? wrap(database) : database;
};

// Within `wrapping.run(wrap, fn)`, what fn's work sends goes through `wrap` (readTogether,
// ./store.ts, which batches reads made together).
export const wrapping = new AsyncLocalStorage<(database: Database) => Database>();

// The database of this process from now on; undefined: DynamoDB again. `forLibraries`: the SDK's
// own client that reaches it, for the libraries that take one (a test's, over its database).
export function useDatabase(database: Database | undefined, forLibraries?: DynamoDBClient): void {
  chosen = database;
  chosenForLibraries = forLibraries;
}

// The same client, unwrapped, for a library that takes the SDK's own (Powertools idempotency).
export const dynamoForLibraries = () => chosenForLibraries ?? sdkClient();
