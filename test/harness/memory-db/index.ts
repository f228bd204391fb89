import { ConditionalCheckFailedException, ResourceNotFoundException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { marshall, unmarshall } from '@aws-sdk/util-dynamodb';
import { type Database, translation } from '../../../lib/platform/db';
import { validation } from './errors';
import {
  type Av,
  applyUpdate,
  type Condition,
  Context,
  evaluate,
  type Item,
  normalNumber,
  order,
  parseCondition,
  parseProjection,
  parseUpdate,
  pathsOf,
  project,
  typeOf,
  type Update,
} from './expressions';

// DynamoDB in memory, for the tests of services: the document client's commands that the stores
// send (Get, BatchGet, Query, Scan, Put, Update, Delete, BatchWrite, TransactWrite), on the tables
// infra/resources.yml defines, with their keys, indexes and projections, their conditions
// (a write whose condition fails in DynamoDB fails here, with the same exception), transactions
// all or nothing with each item's cancellation reason, and numbers exact (to 38 digits, read back
// through the same options as the real client, lib/platform/db.ts). test/unit/store-cases.ts
// holds the cases that this and DynamoDB Local must both pass.
//
// Not kept: capacity and throttling, the 1 MB page and 400 KB item limits, TTL deletion (DynamoDB's is
// late anyway), streams, transaction conflicts (one transaction at a time here).

// A table's definition, as CloudFormation's AWS::DynamoDB::Table properties give it.
export interface TableProperties {
  AttributeDefinitions: { AttributeName: string; AttributeType: 'S' | 'N' | 'B' }[];
  KeySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
  GlobalSecondaryIndexes?: {
    IndexName: string;
    KeySchema: { AttributeName: string; KeyType: 'HASH' | 'RANGE' }[];
    Projection: { ProjectionType: 'ALL' | 'KEYS_ONLY' | 'INCLUDE'; NonKeyAttributes?: string[] };
  }[];
}

interface Keys {
  hash: string;
  range?: string;
}
interface Index extends Keys {
  projection: 'ALL' | 'KEYS_ONLY' | 'INCLUDE';
  include: string[];
}
interface Table extends Keys {
  name: string;
  types: Record<string, string>;
  indexes: Record<string, Index>;
  items: Map<string, Item>;
}

const keysOf = (schema: TableProperties['KeySchema']): Keys => ({
  hash: schema.find((k) => k.KeyType === 'HASH')!.AttributeName,
  range: schema.find((k) => k.KeyType === 'RANGE')?.AttributeName,
});

const keyNames = (k: Keys) => (k.range ? [k.hash, k.range] : [k.hash]);

const avText = (v: Av) => `${typeOf(v)}:${v.B ? Buffer.from(v.B).toString('base64') : (v.S ?? v.N)}`;

export interface MemoryDatabase extends Database {
  // Every item of a table, as the document client would read it (for a test's own look).
  items(table: string): Record<string, any>[];
  // Forgets every item of every table.
  clear(): void;
}

// A database holding `tables` (by name), empty.
export function memoryDatabase(tables: Record<string, TableProperties>): MemoryDatabase {
  const byName = new Map<string, Table>(
    Object.entries(tables).map(([name, p]) => [
      name,
      {
        name,
        ...keysOf(p.KeySchema),
        types: Object.fromEntries(p.AttributeDefinitions.map((a) => [a.AttributeName, a.AttributeType])),
        indexes: Object.fromEntries(
          (p.GlobalSecondaryIndexes ?? []).map((i) => [
            i.IndexName,
            { ...keysOf(i.KeySchema), projection: i.Projection.ProjectionType, include: i.Projection.NonKeyAttributes ?? [] },
          ]),
        ),
        items: new Map(),
      },
    ]),
  );

  const table = (name: string | undefined): Table => {
    const t = byName.get(name ?? '');
    if (!t) throw new ResourceNotFoundException({ message: `Cannot do operations on a non-existent table (${name})`, $metadata: { httpStatusCode: 400 } });
    return t;
  };

  // ---- Values in and out, as the document client turns them ----
  const normal = (v: Av): Av => {
    if (v.N !== undefined) return { N: normalNumber(v.N) };
    if (v.NS) return { NS: v.NS.map(normalNumber) };
    if (v.M) return { M: normalItem(v.M) };
    if (v.L) return { L: v.L.map(normal) };
    return v;
  };
  const normalItem = (item: Item): Item => Object.fromEntries(Object.entries(item).map(([k, v]) => [k, normal(v)]));
  const toItem = (doc: Record<string, unknown> | undefined): Item => normalItem(marshall(doc ?? {}, translation.marshallOptions) as Item);
  const fromItem = (item: Item): Record<string, any> => unmarshall(item as never, translation.unmarshallOptions);
  const context = (input: { ExpressionAttributeNames?: Record<string, string>; ExpressionAttributeValues?: Record<string, unknown> }) =>
    new Context(input.ExpressionAttributeNames, input.ExpressionAttributeValues ? toItem(input.ExpressionAttributeValues) : undefined);

  // ---- Keys ----
  function checkKeyValue(t: Table, name: string, v: Av | undefined, what: string): void {
    if (!v) throw validation(`One or more parameter values were invalid: Missing the key ${name} in the ${what}`);
    const want = t.types[name];
    if (typeOf(v) !== want) throw validation(`One or more parameter values were invalid: Type mismatch for key ${name} expected: ${want} actual: ${typeOf(v)}`);
    if ((v.S ?? '') === '' && want === 'S')
      throw validation(`One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty string value. Key: ${name}`);
  }
  function keyOf(t: Table, key: Item, what = 'item'): string {
    const names = keyNames(t);
    for (const n of names) checkKeyValue(t, n, key[n], what);
    if (what === 'key' && Object.keys(key).length !== names.length) throw validation('The provided key element does not match the schema');
    return names.map((n) => avText(key[n])).join('|');
  }
  const keyItem = (t: Table, item: Item): Item => Object.fromEntries(keyNames(t).map((n) => [n, item[n]]));
  function checkIndexKeys(t: Table, item: Item): void {
    for (const index of Object.values(t.indexes))
      for (const n of keyNames(index)) {
        const v = item[n];
        if (!v) continue;
        if (typeOf(v) !== t.types[n] || (t.types[n] === 'S' && v.S === ''))
          throw validation(
            `One or more parameter values were invalid: Type mismatch for Index Key ${n} Expected: ${t.types[n]} Actual: ${typeOf(v)} IndexName: ${Object.keys(t.indexes).find((k) => t.indexes[k] === index)}`,
          );
      }
  }

  // ---- Writes: what each makes of the table, checked, before anything is stored ----
  interface Planned {
    table: Table;
    key: string;
    after: Item | undefined; // undefined: deleted (or, for a condition check, as it was)
    before: Item | undefined;
    touches: boolean; // false: a condition check
  }
  type WriteInput = {
    TableName?: string;
    Key?: Record<string, unknown>;
    Item?: Record<string, unknown>;
    ConditionExpression?: string;
    UpdateExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
  };
  // Reads a write's expressions (a syntax error throws now), and answers how to plan it.
  function prepare(kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck', input: WriteInput) {
    const t = table(input.TableName);
    const ctx = context(input);
    const item = kind === 'Put' ? toItem(input.Item) : undefined;
    const key = kind === 'Put' ? keyOf(t, item!) : keyOf(t, toItem(input.Key), 'key');
    const keyAvs = kind === 'Put' ? keyItem(t, item!) : toItem(input.Key);
    const condition: Condition | undefined = input.ConditionExpression ? parseCondition(input.ConditionExpression, ctx) : undefined;
    if (kind === 'ConditionCheck' && !condition) throw validation('ConditionCheck requires a ConditionExpression');
    let update: Update | undefined;
    if (kind === 'Update') {
      if (!input.UpdateExpression) throw validation('In memory, an update takes an UpdateExpression (AttributeUpdates is not supported)');
      update = parseUpdate(input.UpdateExpression, ctx);
      const keyAttrs = keyNames(t);
      for (const p of [...update.set.map((s) => s.path), ...update.remove, ...update.add.map((a) => a.path), ...update.delete.map((d) => d.path)])
        if (keyAttrs.includes(p[0] as string))
          throw validation(`One or more parameter values were invalid: Cannot update attribute ${p[0]}. This attribute is part of the key`);
    }
    ctx.checkAllUsed();
    // Evaluates on the table as it is: the write's outcome, or its condition's failure.
    const plan = (): Planned | 'failed' => {
      const before = t.items.get(key);
      if (condition && !evaluate(condition, before, ctx)) return 'failed';
      let after: Item | undefined;
      if (kind === 'Put') after = item;
      else if (kind === 'Update') after = applyUpdate(update!, before ?? keyAvs, ctx);
      if (after) checkIndexKeys(t, after);
      return { table: t, key, before, after, touches: kind !== 'ConditionCheck' };
    };
    return { table: t, key, plan };
  }
  const store = (p: Planned) => {
    if (!p.touches) return;
    if (p.after) p.table.items.set(p.key, p.after);
    else p.table.items.delete(p.key);
  };
  // With ReturnValuesOnConditionCheckFailure ALL_OLD, the item that failed it, as DynamoDB's wire
  // carries it (numbers as DynamoDB writes them: normalItem).
  const conditionFailed = (Item?: Item) =>
    new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 }, ...(Item && { Item }) });

  function single(kind: 'Put' | 'Update' | 'Delete', input: WriteInput & { ReturnValues?: string; ReturnValuesOnConditionCheckFailure?: string }) {
    const { plan, table: t, key } = prepare(kind, input);
    const rv = input.ReturnValues ?? 'NONE';
    const allowed = kind === 'Update' ? ['NONE', 'ALL_OLD', 'ALL_NEW'] : ['NONE', 'ALL_OLD'];
    if (!allowed.includes(rv)) throw validation(`In memory, ReturnValues ${rv} is not supported on ${kind}`);
    const p = plan();
    if (p === 'failed') throw conditionFailed(input.ReturnValuesOnConditionCheckFailure === 'ALL_OLD' ? t.items.get(key) : undefined);
    store(p);
    const back = rv === 'ALL_OLD' ? p.before : rv === 'ALL_NEW' ? p.after : undefined;
    return back ? { Attributes: fromItem(back) } : {};
  }

  function transactWrite(input: { TransactItems?: Record<string, WriteInput | undefined>[] }) {
    const items = input.TransactItems ?? [];
    if (!items.length || items.length > 100) throw validation(`Member must have length between 1 and 100 (TransactItems: ${items.length})`);
    const prepared = items.map((entry) => {
      const kinds = (['Put', 'Update', 'Delete', 'ConditionCheck'] as const).filter((k) => entry[k]);
      if (kinds.length !== 1) throw validation('Each TransactItem takes exactly one of Put, Update, Delete and ConditionCheck');
      return prepare(kinds[0], entry[kinds[0]]!);
    });
    const targets = new Set<string>();
    for (const p of prepared) {
      const target = `${p.table.name}|${p.key}`;
      if (targets.has(target)) throw validation('Transaction request cannot include multiple operations on one item');
      targets.add(target);
    }
    const plans = prepared.map((p) => {
      try {
        return p.plan();
      } catch (e) {
        if ((e as Error).name === 'ValidationException') return { error: (e as Error).message };
        throw e;
      }
    });
    const reasons = plans.map((p) =>
      p === 'failed'
        ? { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' }
        : 'error' in p
          ? { Code: 'ValidationError', Message: p.error }
          : { Code: 'None' },
    );
    if (reasons.some((r) => r.Code !== 'None'))
      throw new TransactionCanceledException({
        message: `Transaction cancelled, please refer cancellation reasons for specific reasons [${reasons.map((r) => r.Code).join(', ')}]`,
        $metadata: { httpStatusCode: 400 },
        CancellationReasons: reasons,
      });
    for (const p of plans as Planned[]) store(p);
    return {};
  }

  // ---- Reads ----
  type ReadInput = {
    TableName?: string;
    IndexName?: string;
    KeyConditionExpression?: string;
    FilterExpression?: string;
    ProjectionExpression?: string;
    ExpressionAttributeNames?: Record<string, string>;
    ExpressionAttributeValues?: Record<string, unknown>;
    ScanIndexForward?: boolean;
    Limit?: number;
    ExclusiveStartKey?: Record<string, unknown>;
    ConsistentRead?: boolean;
    Select?: string;
    Segment?: number;
    TotalSegments?: number;
  };

  const indexView = (t: Table, index: Index | undefined, item: Item): Item | undefined => {
    if (!index) return item;
    if (keyNames(index).some((n) => !item[n])) return undefined; // sparse: not in the index
    if (index.projection === 'ALL') return item;
    const keep = new Set([...keyNames(t), ...keyNames(index), ...(index.projection === 'INCLUDE' ? index.include : [])]);
    return Object.fromEntries(Object.entries(item).filter(([k]) => keep.has(k)));
  };

  // Items in the order a read takes them: by the (index's) sort key, then the table's keys.
  const sortKeyNames = (t: Table, index: Index | undefined) => [...(index?.range ? [index.range] : []), ...keyNames(t)];
  const compareBy = (names: string[]) => (a: Item, b: Item) => {
    for (const n of names) {
      const o = a[n] && b[n] ? (order(a[n], b[n]) ?? 0) : 0;
      if (o) return o;
    }
    return 0;
  };

  function read(kind: 'Query' | 'Scan', input: ReadInput) {
    const t = table(input.TableName);
    const index = input.IndexName === undefined ? undefined : t.indexes[input.IndexName];
    if (input.IndexName !== undefined && !index) throw validation(`The table does not have the specified index: ${input.IndexName}`);
    if (index && input.ConsistentRead) throw validation('Consistent reads are not supported on global secondary indexes');
    if (input.Select && input.Select !== 'ALL_ATTRIBUTES') throw validation(`In memory, Select ${input.Select} is not supported`);
    if (input.Segment !== undefined || input.TotalSegments !== undefined) throw validation('In memory, a parallel Scan is not supported');
    if (input.Limit !== undefined && input.Limit < 1) throw validation('Limit must be 1 or more');
    const ctx = context(input);
    const keys: Keys = index ?? t;
    let keyCondition: Condition | undefined;
    if (kind === 'Query') {
      if (!input.KeyConditionExpression) throw validation('Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.');
      keyCondition = parseCondition(input.KeyConditionExpression, ctx);
      checkKeyCondition(keyCondition, keys);
    }
    const filter = input.FilterExpression ? parseCondition(input.FilterExpression, ctx) : undefined;
    if (filter && kind === 'Query')
      for (const p of pathsOf(filter))
        if (keyNames(keys).includes(p[0] as string))
          throw validation(`Filter Expression can only contain non-primary key attributes: Primary key attribute: ${p[0]}`);
    const projection = input.ProjectionExpression ? parseProjection(input.ProjectionExpression, ctx) : undefined;
    ctx.checkAllUsed();

    const names = kind === 'Query' ? sortKeyNames(t, index) : [t.hash, ...(t.range ? [t.range] : [])];
    const compare = compareBy(names);
    let candidates = [...t.items.values()].map((i) => indexView(t, index, i)).filter((i): i is Item => i !== undefined);
    if (keyCondition) candidates = candidates.filter((i) => evaluate(keyCondition!, i, ctx));
    candidates.sort(compare);
    if (kind === 'Query' && input.ScanIndexForward === false) candidates.reverse();
    const backwards = kind === 'Query' && input.ScanIndexForward === false;
    if (input.ExclusiveStartKey) {
      const start = toItem(input.ExclusiveStartKey);
      candidates = candidates.filter((i) => (backwards ? compare(i, start) < 0 : compare(i, start) > 0));
    }
    const evaluated = input.Limit !== undefined ? candidates.slice(0, input.Limit) : candidates;
    const passed = filter ? evaluated.filter((i) => evaluate(filter, i, ctx)) : evaluated;
    const last = evaluated.at(-1);
    const lastKey = input.Limit !== undefined && evaluated.length === input.Limit && last ? keyItem(t, last) : undefined;
    if (lastKey && index) for (const n of keyNames(index)) lastKey[n] = last![n];
    return {
      Items: passed.map((i) => fromItem(projection ? project(i, projection) : i)),
      Count: passed.length,
      ScannedCount: evaluated.length,
      ...(lastKey && { LastEvaluatedKey: fromItem(lastKey) }),
    };
  }

  // A key condition is the partition key's equality, and at most one condition on the sort key.
  function checkKeyCondition(c: Condition, keys: Keys): void {
    const parts = c.kind === 'and' ? [c.left, c.right] : [c];
    const bad = () => {
      throw validation('Query key condition not supported');
    };
    if (parts.some((p) => p.kind === 'and' || p.kind === 'or' || p.kind === 'not' || p.kind === 'in')) bad();
    const attribute = (p: Condition): string | undefined => {
      const first = p.kind === 'compare' ? p.left : p.kind === 'between' ? p.of : p.kind === 'function' ? p.args[0] : undefined;
      return first?.kind === 'path' && first.path.length === 1 ? (first.path[0] as string) : undefined;
    };
    const hash = parts.find((p) => attribute(p) === keys.hash);
    if (hash?.kind !== 'compare' || hash.op !== '=' || hash.right.kind !== 'value') bad();
    const rest = parts.filter((p) => p !== hash);
    if (rest.length) {
      const r = rest[0];
      if (attribute(r) !== keys.range) bad();
      if (r.kind === 'compare' && (r.op === '<>' || r.right.kind !== 'value')) bad();
      if (r.kind === 'function' && r.name !== 'begins_with') bad();
    }
  }

  function get(input: ReadInput & { Key?: Record<string, unknown> }) {
    const t = table(input.TableName);
    const ctx = context(input);
    const projection = input.ProjectionExpression ? parseProjection(input.ProjectionExpression, ctx) : undefined;
    ctx.checkAllUsed();
    const item = t.items.get(keyOf(t, toItem(input.Key), 'key'));
    return item ? { Item: fromItem(projection ? project(item, projection) : item) } : {};
  }

  function batchGet(input: { RequestItems?: Record<string, ReadInput & { Keys?: Record<string, unknown>[] }> }) {
    const requests = Object.entries(input.RequestItems ?? {});
    const total = requests.reduce((n, [, r]) => n + (r.Keys?.length ?? 0), 0);
    if (!total || total > 100) throw validation(`Too many items requested for the BatchGetItem call (${total})`);
    const Responses: Record<string, Record<string, any>[]> = {};
    for (const [name, r] of requests) {
      const t = table(name);
      const keys = (r.Keys ?? []).map((k) => keyOf(t, toItem(k), 'key'));
      if (new Set(keys).size !== keys.length) throw validation('Provided list of item keys contains duplicates');
      const ctx = context(r);
      const projection = r.ProjectionExpression ? parseProjection(r.ProjectionExpression, ctx) : undefined;
      ctx.checkAllUsed();
      Responses[name] = keys.flatMap((k) => {
        const item = t.items.get(k);
        return item ? [fromItem(projection ? project(item, projection) : item)] : [];
      });
    }
    return { Responses, UnprocessedKeys: {} };
  }

  function batchWrite(input: {
    RequestItems?: Record<string, { PutRequest?: { Item?: Record<string, unknown> }; DeleteRequest?: { Key?: Record<string, unknown> } }[]>;
  }) {
    const requests = Object.entries(input.RequestItems ?? {});
    const total = requests.reduce((n, [, r]) => n + r.length, 0);
    if (!total || total > 25) throw validation(`Too many items requested for the BatchWriteItem call (${total})`);
    const planned: Planned[] = [];
    const seen = new Set<string>();
    for (const [name, rs] of requests) {
      const t = table(name);
      for (const r of rs) {
        const item = r.PutRequest ? toItem(r.PutRequest.Item) : undefined;
        const key = item ? keyOf(t, item) : keyOf(t, toItem(r.DeleteRequest?.Key), 'key');
        if (seen.has(`${name}|${key}`)) throw validation('Provided list of item keys contains duplicates');
        seen.add(`${name}|${key}`);
        if (item) checkIndexKeys(t, item);
        planned.push({ table: t, key, before: undefined, after: item, touches: true });
      }
    }
    for (const p of planned) store(p);
    return { UnprocessedItems: {} };
  }

  const run = (command: unknown): unknown => {
    const input = (command as { input: any }).input;
    if (command instanceof GetCommand) return get(input);
    if (command instanceof PutCommand) return single('Put', input);
    if (command instanceof UpdateCommand) return single('Update', input);
    if (command instanceof DeleteCommand) return single('Delete', input);
    if (command instanceof TransactWriteCommand) return transactWrite(input);
    if (command instanceof QueryCommand) return read('Query', input);
    if (command instanceof ScanCommand) return read('Scan', input);
    if (command instanceof BatchGetCommand) return batchGet(input);
    if (command instanceof BatchWriteCommand) return batchWrite(input);
    throw new Error(`The in-memory database does not take ${(command as object)?.constructor?.name}: add it to test/harness/memory-db`);
  };

  return {
    // Each command runs whole before the next begins, as one request does on DynamoDB; answered
    // on a later turn of the event loop, as a request's answer is.
    send: ((command: unknown) =>
      new Promise((resolve, reject) => {
        let out: unknown;
        try {
          out = { ...(run(command) as object), $metadata: {} };
        } catch (e) {
          setImmediate(() => reject(e));
          return;
        }
        setImmediate(() => resolve(out as never));
      })) as Database['send'],
    items: (name) => [...table(name).items.values()].map(fromItem),
    clear: () => {
      for (const t of byName.values()) t.items.clear();
    },
  };
}
