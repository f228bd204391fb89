import { BatchGetCommand, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { type AuditedKind, GUARD_ONLY } from '../shared/audited';
import { commonErrors } from '../shared/errors';
import { type Node, OPERATOR_TENANT_ID } from '../shared/node';
import { type Database, db, wrapping } from './db';

// Helpers shared by the DynamoDB adapters of every domain.

// Every partition key a store writes or reads (pk, and the index keys listPk, openPk, lookupPk...)
// goes through here: a tenant's items live in its own key space. The operator's keys are bare,
// so a single-tenant deployment stores exactly what it always did.
export const scoped = (node: Pick<Node, 'tenant'>, key: string): string => (node.tenant.operator ? key : `T#${node.tenant.id}#${key}`);

// A collection that a list index serves is spread over several partitions of that index, so that
// no partition takes every write; the shard comes from a hash of the item's id, so it never moves.
export function shardOf(id: string, shards: number): number {
  let hash = 0x811c9dc5; // FNV-1a
  for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
  return (hash >>> 0) % shards;
}

export const shardKeys = (node: Pick<Node, 'tenant'>, name: string, shards: number) => Array.from({ length: shards }, (_, k) => scoped(node, `${name}#${k}`));

// The key of a resource's record (lib/shared/audited): "<KIND>#<id>", sort key <KIND>, in its tenant's scope.
export const recordKey = (node: Pick<Node, 'tenant'>, kind: AuditedKind, id: string) => ({ pk: scoped(node, `${kind}#${id}`), sk: kind });

// The id at the end of a partition key ("INTENT#<id>", scoped or not): ids hold no '#'.
export const idOfKey = (pk: string) => pk.slice(pk.lastIndexOf('#') + 1);

// The tenant a partition key belongs to (scoped() above): a tenant's, or the operator's.
export const tenantOfKey = (pk: string) => (pk.startsWith('T#') ? pk.slice(2, pk.indexOf('#', 2)) : OPERATOR_TENANT_ID);
// A partition key without its tenant's scope.
export const unscoped = (pk: string) => (pk.startsWith('T#') ? pk.slice(pk.indexOf('#', 2) + 1) : pk);

// An Update's expressions that add one to a count stopping at `limit` (a rate's, in the window its
// key names), the item kept until `keepUntilSecs` (its TTL): a full count fails the condition and
// changes nothing. The caller builds the Update, so that its table is named in its own module.
export const countUpTo = (limit: number, keepUntilSecs: number) => ({
  UpdateExpression: 'SET #n = if_not_exists(#n, :zero) + :one, #ttl = :ttl',
  ConditionExpression: 'attribute_not_exists(#n) OR #n < :limit',
  ExpressionAttributeNames: { '#n': 'n', '#ttl': 'ttl' },
  ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': limit, ':ttl': keepUntilSecs },
});

// The main table's index of collections, each listed newest first (listSk: "<createdAt>#<id>").
export const LISTS = { index: 'Lists', partitionKey: 'listPk', sortKey: 'listSk' } as const;
// A second collection an item is listed in, by the same sort key: a transfer leg is in its debit
// account's history under Lists and in its credit account's under Lists2 (lib/ledger/store.ts).
// Its sort key is a literal, not LISTS.sortKey: a property read keeps the constant, and so the
// index's name, in every bundle (the least-privilege test reads names off bundles); queryNewestFirst
// checks the two agree.
export const LISTS2 = { index: 'Lists2', partitionKey: 'list2Pk', sortKey: 'listSk' } as const;

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

// The cursor is the opaque (base64url JSON) sort key of the last item returned. Every list's sort
// key is "<ISO 8601 UTC time>#<uuid>", with a packet's condition (64 hex digits) after it in the
// listing of unanswered packets, so a cursor is short and of one shape; anything else is refused
// here, before it reaches DynamoDB (which refuses a key over 1024 bytes with an error).
const MAX_CURSOR_LENGTH = 256;
const SORT_KEY = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z#[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(#[0-9a-f]{64})?$/;
function decodeCursor(cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  if (cursor.length > MAX_CURSOR_LENGTH) throw commonErrors.invalidCursor(`is longer than any cursor a list returns (${MAX_CURSOR_LENGTH} characters)`);
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) throw commonErrors.invalidCursor('is not a cursor this list returned (base64url)');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw commonErrors.invalidCursor('is not a cursor this list returned');
  }
  const after = (decoded as { after?: unknown } | null)?.after;
  if (typeof after !== 'string' || Object.keys(decoded as object).length !== 1 || !SORT_KEY.test(after))
    throw commonErrors.invalidCursor('is not a cursor this list returned');
  return after;
}

// A read returns at most 1 MB anyway: some thousands of index entries.
const MAX_READ = 10_000;

// One page of a collection spread over `partitions` of an index, newest first (sort keys begin
// with the creation time and end with the id, so they are unique and ordered). Each partition is
// asked for one more item than the page holds, so the last page is known to be the last: it has
// no nextCursor.
export async function queryNewestFirst(opts: {
  table: string;
  index?: string; // none: the table's own keys
  partitionKey: string;
  sortKey: string;
  partitions: string[];
  // More partitions, of another index with the same sort key, merged in as the others.
  alsoIn?: { index: string; partitionKey: string; sortKey: string; partitions: string[] };
  limit: number;
  cursor?: string;
  // Only items that pass it; each partition is then read on until it has enough or ends.
  filter?: { expression: string; names: Record<string, string>; values: Record<string, unknown> };
  // Only sort keys in [from, to): a key condition, so that nothing outside the range is read.
  range?: { from: string; to: string };
}): Promise<Page<Record<string, any>>> {
  const after = decodeCursor(opts.cursor);
  // A cursor from before the range (an earlier, wider window, or one that slid on) has nothing
  // older within it; BETWEEN would refuse a bound below its lower one.
  if (opts.range && after !== undefined && after < opts.range.from) return { items: [], nextCursor: null };
  // One condition on the sort key: below the cursor, within the range. BETWEEN takes its upper
  // bound too, which is the cursor's own item (read, then dropped) or a bare time no key equals.
  const upper = opts.range && after !== undefined && after < opts.range.to ? after : opts.range?.to;
  const key = opts.range
    ? { condition: ' AND #sk BETWEEN :from AND :upper', values: { ':from': opts.range.from, ':upper': upper } }
    : after !== undefined
      ? { condition: ' AND #sk < :after', values: { ':after': after } }
      : undefined;
  const newest = async ({ index, partitionKey, partition }: { index?: string; partitionKey: string; partition: string }) => {
    const items: Record<string, any>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    // A page's worth first; where a filter leaves too few, each next read is twice as long, so that
    // a selective filter over a long partition takes a few requests, not one per page read.
    let Limit = opts.limit + (opts.range ? 2 : 1);
    do {
      const res = await db().send(
        new QueryCommand({
          TableName: opts.table,
          IndexName: index,
          KeyConditionExpression: `#pk = :pk${key?.condition ?? ''}`,
          ...(opts.filter && { FilterExpression: opts.filter.expression }),
          ExpressionAttributeNames: { '#pk': partitionKey, ...(key && { '#sk': opts.sortKey }), ...opts.filter?.names },
          ExpressionAttributeValues: { ':pk': partition, ...key?.values, ...opts.filter?.values },
          ScanIndexForward: false,
          Limit,
          ExclusiveStartKey,
        }),
      );
      Limit = Math.min(Limit * 2, MAX_READ);
      items.push(...(res.Items ?? []).filter((i) => i[opts.sortKey] !== after));
      ExclusiveStartKey = opts.filter ? res.LastEvaluatedKey : undefined;
    } while (ExclusiveStartKey && items.length <= opts.limit);
    return items;
  };
  const { alsoIn } = opts;
  if (alsoIn && alsoIn.sortKey !== opts.sortKey) throw new Error(`${alsoIn.index} is not sorted by ${opts.sortKey}: its items cannot be merged in`);
  const reads = [
    ...opts.partitions.map((partition) => ({ index: opts.index, partitionKey: opts.partitionKey, partition })),
    ...(alsoIn ? alsoIn.partitions.map((partition) => ({ index: alsoIn.index, partitionKey: alsoIn.partitionKey, partition })) : []),
  ];
  // (A stable sort: an item in both indexes, under one sort key, comes first as the first index's.)
  const newer = (a: Record<string, any>, b: Record<string, any>) => (a[opts.sortKey] < b[opts.sortKey] ? 1 : a[opts.sortKey] > b[opts.sortKey] ? -1 : 0);
  const merged = (await Promise.all(reads.map(newest))).flat().sort(newer);
  const items = merged.slice(0, opts.limit);
  const more = merged.length > opts.limit;
  return { items, nextCursor: more ? Buffer.from(JSON.stringify({ after: items.at(-1)![opts.sortKey] })).toString('base64url') : null };
}

// A list's time window [from, to) as queryNewestFirst's range over "<time>#<id>" sort keys (an open
// bound: the lowest or highest time there is); none when neither bound is given.
export const timeRange = (q: { from?: string; to?: string }) => (q.from || q.to ? { range: { from: q.from ?? '0000', to: q.to ?? '9999' } } : {});

// Every item a query matches, following LastEvaluatedKey through all pages.
export async function queryAll(input: QueryCommandInput): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const res = await db().send(new QueryCommand({ ...input, ExclusiveStartKey }));
    items.push(...(res.Items ?? []));
    ExclusiveStartKey = res.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items;
}

// The items at `keys`, in the order of the keys, leaving out those that do not exist: one
// BatchGetItem per 100 keys (its limit; a page of a list is one).
const GET_ALL_ATTEMPTS = 6;
export const BATCH_GET_MAX = 100;
// (A projection must name the key's attributes.)
export async function getAll(
  table: string,
  keys: Record<string, string>[],
  read: { ConsistentRead?: boolean; ProjectionExpression?: string } = {},
): Promise<Record<string, any>[]> {
  const items = await batchGet(
    keys.map((key) => ({ table, key })),
    read,
  );
  return items.filter((item): item is Record<string, any> => item !== undefined && !item[GUARD_ONLY]);
}

// One item read by its key, as a store describes it (its table, its key, how its item reads), so
// that reads of several domains' items, each by its own store's key, can go in one request.
export interface Lookup<T> {
  table: string;
  key: Record<string, string>;
  read: (item: Record<string, any>) => T | undefined;
}

// The items of these lookups, across tables, in one BatchGetItem (eventually consistent): each
// read as its store reads it, undefined where there is none.
export async function getEach<T extends readonly Lookup<unknown>[]>(lookups: T): Promise<{ [K in keyof T]: ReturnType<T[K]['read']> | undefined }> {
  const items = await batchGet(lookups);
  return lookups.map((l, i) => (items[i] === undefined || items[i][GUARD_ONLY] ? undefined : l.read(items[i]))) as never;
}

// One lookup's item, read alone: consistently unless said (a change is seen by the next read).
export async function getOne<T>(l: Lookup<T>, ConsistentRead = true): Promise<T | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: l.table, Key: l.key, ConsistentRead }));
  return Item && !Item[GUARD_ONLY] ? l.read(Item) : undefined;
}

// Keys of one table or several: the items, in their keys' order (undefined where none is), a replay
// guard's (GUARD_ONLY) as it is, which a read of records passes over and a GetCommand sees. A key
// asked twice is read once (BatchGetItem refuses repeats); one BatchGetItem per 100 keys (its
// limit). Keys that it leaves unprocessed (under throttling) are asked again, after a pause that
// doubles each time.
async function batchGet(
  keys: readonly { table: string; key: Record<string, string> }[],
  read: { ConsistentRead?: boolean; ProjectionExpression?: string } = {},
): Promise<(Record<string, any> | undefined)[]> {
  const names = new Map(keys.map(({ table, key }) => [table, Object.keys(key)]));
  const id = (table: string, k: Record<string, unknown>) => [table, ...names.get(table)!.map((name) => k[name])].join('\u0000');
  const distinct = [...new Map(keys.map((k) => [id(k.table, k.key), k])).values()];
  const found = new Map<string, Record<string, any>>();
  const readChunk = async (chunk: typeof distinct) => {
    let pending = chunk;
    for (let attempt = 0; pending.length; attempt++) {
      if (attempt === GET_ALL_ATTEMPTS) throw commonErrors.readThrottled(pending.length, attempt);
      if (attempt) await new Promise((r) => setTimeout(r, 25 * 2 ** attempt));
      const tables = [...new Set(pending.map((k) => k.table))];
      const RequestItems = Object.fromEntries(tables.map((t) => [t, { Keys: pending.filter((k) => k.table === t).map((k) => k.key), ...read }]));
      const res = await db().send(new BatchGetCommand({ RequestItems }));
      for (const [table, items] of Object.entries(res.Responses ?? {})) for (const item of items) found.set(id(table, item), item);
      pending = Object.entries(res.UnprocessedKeys ?? {}).flatMap(([table, r]) => (r.Keys ?? []).map((key) => ({ table, key: key as Record<string, string> })));
    }
  };
  await Promise.all(
    Array.from({ length: Math.ceil(distinct.length / BATCH_GET_MAX) }, (_, i) => readChunk(distinct.slice(i * BATCH_GET_MAX, (i + 1) * BATCH_GET_MAX))),
  );
  return keys.map(({ table, key }) => found.get(id(table, key)));
}

// A page of a collection listed by small listing items that sit beside its records (so that a
// record's frequent changes do not rewrite the list's partitions), with the records themselves:
// the listing items' query, then one BatchGetItem.
export async function pageOfListed(
  opts: Parameters<typeof queryNewestFirst>[0] & { recordKey: (listing: Record<string, any>) => Record<string, string> },
): Promise<Page<Record<string, any>>> {
  const { recordKey, ...query } = opts;
  const page = await queryNewestFirst(query);
  return { items: await getAll(opts.table, page.items.map(recordKey)), nextCursor: page.nextCursor };
}

// A page of a collection listed in `partitions` of the Lists index, for Open Payments' cursor
// pagination, newest first: `size` items older than the sort key `from` (or the newest), or newer
// than it; and whether more lie past each end. With `client`, only the items that client created.
export interface TwoWayPage {
  items: Record<string, any>[];
  hasNextPage: boolean; // older ones follow
  hasPreviousPage: boolean; // newer ones precede
}

export async function pageTwoWays(opts: {
  table: string;
  partitions: string[];
  size: number;
  direction: 'older' | 'newer';
  from?: string;
  client?: string;
}): Promise<TwoWayPage> {
  const older = opts.direction === 'older';
  const read = async (partition: string, towardsOlder: boolean, limit: number) => {
    const found: Record<string, any>[] = [];
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const res = await db().send(
        new QueryCommand({
          TableName: opts.table,
          IndexName: LISTS.index,
          KeyConditionExpression: `listPk = :pk${opts.from ? ` AND listSk ${towardsOlder ? '<' : '>'} :from` : ''}`,
          ...(opts.client && { FilterExpression: 'client = :client' }),
          ExpressionAttributeValues: { ':pk': partition, ...(opts.from && { ':from': opts.from }), ...(opts.client && { ':client': opts.client }) },
          ScanIndexForward: !towardsOlder,
          Limit: limit,
          ExclusiveStartKey,
        }),
      );
      found.push(...(res.Items ?? []));
      ExclusiveStartKey = res.LastEvaluatedKey;
    } while (ExclusiveStartKey && found.length < limit);
    return found.slice(0, limit);
  };
  // Each partition's nearest items in the direction read, merged nearest first.
  const nearest = async (towardsOlder: boolean, limit: number) =>
    (await Promise.all(opts.partitions.map((p) => read(p, towardsOlder, limit))))
      .flat()
      .sort((a, b) => (a.listSk < b.listSk === towardsOlder ? 1 : -1))
      .slice(0, limit);
  const [found, beyondCursor] = await Promise.all([nearest(older, opts.size + 1), opts.from ? nearest(!older, 1) : Promise.resolve([])]);
  const more = found.length > opts.size;
  const page = found.slice(0, opts.size);
  return older
    ? { items: page, hasNextPage: more, hasPreviousPage: beyondCursor.length > 0 }
    : { items: page.reverse(), hasNextPage: beyondCursor.length > 0, hasPreviousPage: more };
}

// Reads made together: within `readTogether(fn)`, the GetCommands that fn's work sends at about the
// same moment (before the event loop next turns: a Promise.all of independent reads, each a few
// promise steps deep in its own domain) go as one BatchGetItem per table (getAll), one round trip
// instead of one each; a lone one goes as it was. Consistency is kept (a batch reads consistently
// when its reads asked so), and so is each read's answer ({ Item }, or none), but for a projection: a
// batched read answers the whole item (which costs the same read units up to 4 KB). Only this
// scope's reads are batched, so one invocation's reads never wait on, or fail with, another's.
interface Waiting {
  command: GetCommand;
  done: (output: { Item?: Record<string, any> }) => void;
  failed: (e: unknown) => void;
}

export function readTogether<T>(fn: () => Promise<T>): Promise<T> {
  const waiting: Waiting[] = [];
  const batching = (database: Database): Database => ({
    send: ((command: unknown) => {
      if (!(command instanceof GetCommand)) return database.send(command as never);
      return new Promise<{ Item?: Record<string, any> }>((done, failed) => {
        if (!waiting.length) setImmediate(() => readNow(database, waiting.splice(0)));
        waiting.push({ command, done, failed });
      });
    }) as Database['send'],
  });
  return wrapping.run(batching, fn);
}

function readNow(database: Database, waiting: Waiting[]): void {
  const byConsistency = [true, false].map((strong) => waiting.filter((w) => (w.command.input.ConsistentRead === true) === strong));
  for (const group of byConsistency) {
    if (group.length === 1) database.send(group[0].command).then(group[0].done, group[0].failed);
    if (group.length < 2) continue;
    const keys = group.map((w) => ({ table: w.command.input.TableName!, key: w.command.input.Key as Record<string, string> }));
    batchGet(keys, { ConsistentRead: group[0].command.input.ConsistentRead }).then(
      (items) => {
        for (const [i, w] of group.entries()) w.done({ Item: items[i] });
      },
      (e) => {
        for (const w of group) w.failed(e);
      },
    );
  }
}
