import { AsyncLocalStorage } from 'node:async_hooks';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  type DeleteCommandInput,
  GetCommand,
  PutCommand,
  type PutCommandInput,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
  type UpdateCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { AUDITED_KINDS, AUDITED_PARTS, GUARD_ID } from '../shared/audited';
import type { Node } from '../shared/node';
import { isConflict } from './aws';
import { CHANGED_BY, db } from './db';
import { OUTBOX_RETENTION_SECS, OUTBOX_SORT_PREFIX, type Outbound, type Outgoing } from './events';
import { crashPoint } from './faults';
import { countLedgerConflict } from './metrics';
import { idOfKey, unscoped } from './store';
import { currentTraceHeader } from './tracing';

// The one unit of work: a state change's writes and its outgoing events and messages (as outbox
// items, which the outbox relay sends from the table's stream) commit together, or nothing does.
// Every write names what its failed condition means (`refusal`), so that callers read outcomes by
// name ('insufficient:liquidity:…', 'quote_taken'), never by position.
export type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];
export type Write = TransactItem & { refusal?: Refusal };
export type Refusals = Refusal[];

// Every refusal a write can carry is declared once, by the domain whose store writes it, as one
// more entry here (`declare module '../platform/tx' { interface RefusalsOf { peers: … } }`, beside
// its store's writes): so a misspelt refusal, at a write or where a caller reads one, does not
// compile. A refusal with a part (the ledger's `insufficient:<account>`) is a template literal type.
export interface RefusalsOf {
  tx: typeof CHANGED;
}
export type Refusal = RefusalsOf[keyof RefusalsOf];

const CHANGED = 'changed'; // the refusal of a write that names none

// Writes that ride along with the first transaction of a scope, handed in by whoever opened the
// scope: the Admin API's signature replay guard (checking it then costs no round trip of its own).
// Each is named by its opener, and made when the transaction is, from the transaction's own writes.
// Its failed condition is thrown as `refused()`. A rider that no transaction took is the opener's to
// write (untakenRider). A rider that puts an item where none is (`attribute_not_exists(pk)`) is held
// by a transaction that puts an item of the same key on the same condition (a create whose record is
// the guard, lib/platform/ids.ts): it then adds no item, and that put's failed condition, in this
// transaction or a later one of the scope, is its refusal. A create whose record is named rather than
// drawn (a payment, by its quote: one quote, one payment) holds the rider by keeping the rider's id on
// the record (GUARD_ID, lib/platform/ids drawnForNamed): its failed condition is then its own refusal
// (another request may have taken the name), and the record found there tells whether it is the
// rider's (heldRiderRefusal). A rider `heldOnly` rides in no other
// transaction: one that the scope's work commits before its create (a quote's probe packets, which
// its own connector forwards and records in-process) must not put the item the create is to put.
export interface Rider {
  write: (writes: Write[]) => TransactItem;
  refused: () => Error;
  heldOnly?: boolean;
}
type Scope = Map<string, { rider: Rider; taken: boolean }>; // the riders, by name
const scope = new AsyncLocalStorage<Scope>();

export const riderScope = <T>(fn: () => Promise<T>) => scope.run(new Map(), fn);

export function rideAlong(name: string, rider: Rider): void {
  const s = scope.getStore();
  if (!s) throw new Error('rideAlong() outside riderScope()');
  s.set(name, { rider, taken: false });
}

export function untakenRider(name: string): Rider | undefined {
  const r = scope.getStore()?.get(name);
  return r && !r.taken ? r.rider : undefined;
}

// The refusal of this scope's rider that `record` (a named record as read, which a create found in
// its place) holds, if it holds one: the request made it before, and this is its replay. The rider
// counts as taken: that record keeps it.
export function heldRiderRefusal(record: { [GUARD_ID]?: unknown }): Error | undefined {
  const held = [...(scope.getStore()?.values() ?? [])].find((r) => record[GUARD_ID] !== undefined && record[GUARD_ID] === riderId(r.rider.write([])));
  if (!held) return undefined;
  held.taken = true;
  return held.rider.refused();
}

// The refusal of this scope's rider that the record at `key` (the main table's) holds, if a record
// there holds one (heldRiderRefusal): read where a request finds a record named as its own would be
// (a refusal's path, an Idempotency-Key's replay), to tell its own replay from another request.
export async function heldRiderRefusalAt(node: Node, key: Record<string, string>): Promise<Error | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: key, ProjectionExpression: GUARD_ID, ConsistentRead: true }));
  return Item && heldRiderRefusal(Item);
}

// The refusal of this scope's rider whose own place is taken (a guard a refused request of the same
// signature left there: lib/api/http/store.ts), if one is: for a create whose record is named, whose
// transaction puts elsewhere and so cannot find it. One read, a GetCommand, so that it goes in the
// batch of the create's other reads (readTogether); none outside an Admin request's scope.
export async function spentRiderRefusal(): Promise<Error | undefined> {
  for (const state of scope.getStore()?.values() ?? []) {
    const put = state.rider.write([]).Put;
    if (state.taken || put?.ConditionExpression !== CREATES) continue;
    const { Item } = await db().send(new GetCommand({ TableName: put.TableName, Key: { pk: put.Item?.pk, sk: put.Item?.sk }, ConsistentRead: true }));
    if (!Item) continue;
    state.taken = true;
    return state.rider.refused();
  }
  return undefined;
}

const CREATES = 'attribute_not_exists(pk)';
const riderId = (rider: TransactItem) => (typeof rider.Put?.Item?.pk === 'string' ? idOfKey(rider.Put.Item.pk) : undefined);
// Whether `write` puts, on the same condition, the item `rider` would ('key'), or a record of its kind
// named instead, which keeps the rider's id ('named').
function holds(write: TransactItem, rider: TransactItem): 'key' | 'named' | undefined {
  const [w, r] = [write.Put, rider.Put];
  if (!w || !r || w.ConditionExpression !== CREATES || r.ConditionExpression !== CREATES || w.TableName !== r.TableName || w.Item?.sk !== r.Item?.sk)
    return undefined;
  if (w.Item?.pk === r.Item?.pk) return 'key';
  return w.Item?.[GUARD_ID] !== undefined && w.Item[GUARD_ID] === riderId(rider) ? 'named' : undefined;
}

// Who makes the changes of a scope, and why: stamped on every item a commit puts or updates (one
// attribute, CHANGED_BY, no write of its own), so that the table's stream carries it to the audit
// trail (lib/audit) with the item's old and new images. An Admin request names its operator or its
// signing key (lib/api/http/admin.ts); work outside any such scope is the service's own, by name.
export interface Author {
  actor: { kind: 'operator' | 'key' | 'service'; name: string; role?: string };
  action: string; // an Admin route, "<METHOD> <path template>"; the service's: the work's name
  operationId?: string;
  status?: number; // the route's answer on success
  requestId?: string;
  reason?: string; // where the route takes one
}
export { CHANGED_BY };
// A scope's author is named once it is known (an Admin request's, once its signature is checked);
// `committed`: whether a commit of the scope put or updated an audited record, which the stream
// carries to the trail with its author (any other action, one that changed nothing, a pushed rate, a
// redelivery, a delete, is audited apart).
export interface Authoring {
  author?: Author;
  committed: boolean;
}
const authoring = new AsyncLocalStorage<Authoring>();
export const authorScope = <T>(fn: (a: Authoring) => Promise<T>) => {
  const a: Authoring = { committed: false };
  return authoring.run(a, () => fn(a));
};
export function setAuthor(author: Author): void {
  const a = authoring.getStore();
  if (a) a.author = author;
}
const committed = (writes: TransactItem[]) => {
  const a = authoring.getStore();
  if (a && writes.some((w) => audited(w.Put?.Item ?? w.Update?.Key))) a.committed = true;
};

const stampOf = (name: string): string =>
  JSON.stringify({ ...(authoring.getStore()?.author ?? { actor: { kind: 'service', name: 'payment-service' }, action: name }), at: new Date().toISOString() });

// The author a stamp names, and when. A stamp is written as an object naming its fields; it is read
// as that, or as its fields' values in a fixed order, a JSON array (kind, name, action, operationId,
// status, requestId, the time in epoch ms, role, reason; 0 for one it lacks, trailing ones left off),
// about 90 bytes less on every audited record (docs/performance.md). The array is read from this
// release on and is to be written from a later one: an audit reader older than its writer would
// archive the events of array stamps without their authors, for good (a deploy's minutes, a rollback).
export function authorOfStamp(stamp: string): Author & { at: string } {
  if (!stamp.startsWith('[')) return JSON.parse(stamp) as Author & { at: string };
  const [kind, name, action, operationId, status, requestId, at, role = 0, reason = 0] = JSON.parse(stamp);
  const given = <T>(v: T | 0) => v !== 0;
  return {
    actor: { kind, name, ...(given(role) && { role }) },
    action,
    ...(given(operationId) && { operationId }),
    ...(given(status) && { status }),
    ...(given(requestId) && { requestId }),
    ...(given(reason) && { reason }),
    at: new Date(at).toISOString(),
  };
}

// A write with the stamp, if it writes an audited record (lib/shared/audited): a Put's item holds it,
// an Update sets it in its SET clause.
// The kind of audited record an item's key is ("<KIND>#<id>", sort key <KIND>; or one of
// AUDITED_PARTS in its partition), in a tenant's scope or not: none if it is none.
export function auditedRecord(pk: unknown, sk: unknown): { kind: string; id: (fields: Record<string, unknown>) => string } | undefined {
  if (typeof pk !== 'string' || typeof sk !== 'string') return undefined;
  const partition = unscoped(pk);
  if (Object.hasOwn(AUDITED_KINDS, sk)) return partition.startsWith(`${sk}#`) ? { kind: AUDITED_KINDS[sk], id: () => idOfKey(pk) } : undefined;
  const part = AUDITED_PARTS[sk.slice(0, sk.indexOf('#'))];
  return part && partition.startsWith(`${part.partition}#`) ? part : undefined;
}
export const isAuditedRecord = (pk: unknown, sk: unknown): sk is string => auditedRecord(pk, sk) !== undefined;
const audited = (key: Record<string, unknown> | undefined) => isAuditedRecord(key?.pk, key?.sk);
export function stamped<W extends TransactItem>(write: W, stamp: string): W {
  if (!audited(write.Put?.Item ?? write.Update?.Key)) return write;
  if (write.Put) return { ...write, Put: { ...write.Put, Item: { ...write.Put.Item, [CHANGED_BY]: stamp } } };
  if (!write.Update) return write;
  const u = write.Update;
  const expr = u.UpdateExpression ?? '';
  const set = /(^|\s)SET\s/;
  return {
    ...write,
    Update: {
      ...u,
      UpdateExpression: set.test(expr) ? expr.replace(set, '$1SET #changedBy = :changedBy, ') : `SET #changedBy = :changedBy ${expr}`,
      ExpressionAttributeNames: { ...u.ExpressionAttributeNames, '#changedBy': CHANGED_BY },
      ExpressionAttributeValues: { ...u.ExpressionAttributeValues, ':changedBy': stamp },
    },
  };
}

// The stamp of a write made outside commit, by its work's name.
export const authored = <W extends TransactItem>(write: W, name: string): W => stamped(write, stampOf(name));

// Transactions that touch a busy item (an asset's liquidity or settlement account) can be
// cancelled for a conflict with another transaction; that is retried here, with jitter.
const CONFLICT_RETRIES = 8;
const bare = ({ refusal, ...item }: Write): TransactItem => item;

// Commits, and answers the refusals of the writes whose condition failed ([] on success).
export async function commit(node: Node, writes: Write[], outgoing: Outgoing[] = [], name = 'commit'): Promise<Refusals> {
  const stamp = stampOf(name);
  const own: Write[] = [...writes.map((w) => stamped(w, stamp)), ...outboxItems(node, outgoing)];
  // Each rider's item, and the own write that holds it, if one does.
  const riders = [...(scope.getStore()?.values() ?? [])].map((state) => {
    const item = state.rider.write(writes);
    const heldBy = own.findIndex((w) => holds(w, item));
    return { state, item, heldBy, byKey: heldBy >= 0 && holds(own[heldBy], item) === 'key' };
  });
  const riding = riders.filter((r) => !r.state.taken && r.heldBy < 0 && !r.state.rider.heldOnly);
  const all: Write[] = [...own, ...riding.map((r) => r.item)];
  // The rider refused, if an item whose condition failed is a rider's or holds one by its key (taken or not).
  const refused = (failed: number[]) =>
    (riders.find((r) => r.byKey && failed.includes(r.heldBy)) ?? riding.find((_, i) => failed.includes(own.length + i)))?.state.rider.refused();
  const take = () => {
    for (const r of riders) if (r.heldBy >= 0 || !r.state.rider.heldOnly) r.state.taken = true;
  };
  // One write goes alone, at half a transaction's write units. One that holds a rider, whose refusal
  // a retry of its own write must not meet, only if it is a put of a request's stamp: writeAlone
  // knows that put again.
  const holdsRider = riders.some((r) => !r.state.taken && r.heldBy >= 0);
  if (all.length === 1 && (!holdsRider || requestStamped(all[0].Put?.Item))) {
    const refusals = await writeAlone(all[0], name);
    const error = refusals.length ? refused([0]) : undefined;
    if (error) throw error;
    if (!refusals.length) take();
    return refusals;
  }
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: all.map(bare) }));
      take();
      committed(writes);
      crashPoint(`${name}:after-write`);
      return [];
    } catch (e) {
      const failed = failedConditions(e);
      const error = failed && refused(failed);
      if (error) throw error;
      if (failed?.length) return failed.map((i) => all[i].refusal ?? CHANGED);
      if (!isConflict(e) || attempt === CONFLICT_RETRIES) throw e;
      countLedgerConflict();
      await new Promise((r) => setTimeout(r, Math.random() * 5 * 2 ** attempt));
    }
  }
}

// Indexes of the items of a cancelled transaction whose condition failed.
function failedConditions(e: unknown): number[] | undefined {
  if (!(e instanceof TransactionCanceledException)) return undefined;
  return (e.CancellationReasons ?? []).flatMap((r, i) => (r.Code === 'ConditionalCheckFailed' ? [i] : []));
}

// A lone write needs no transaction, which would cost twice as much. A retry after an unclear
// failure (a lost answer, a timeout) can find its own first write there, and fail its condition:
// a conditional put asks for the item that failed it (ReturnValuesOnConditionCheckFailure, at no
// cost), and one that carries this put's author stamp, which names its request (its id and time: no
// other request's), was written by it. (A put without a request's stamp is never taken for its own:
// a replay of it would be the same item. A lone update's own retry still fails: the one that comes
// here, a webhook record's next attempt, takes a failed condition to mean "already written".)
async function writeAlone(write: Write, name: string): Promise<Refusals> {
  const lone = write.Put?.ConditionExpression ? { ...write, Put: { ...write.Put, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' } } : write;
  try {
    if (lone.Put) await db().send(new PutCommand(lone.Put as PutCommandInput));
    else if (write.Update) await db().send(new UpdateCommand(write.Update as UpdateCommandInput));
    else if (write.Delete) await db().send(new DeleteCommand(write.Delete as DeleteCommandInput));
    else throw new Error('A lone ConditionCheck writes nothing');
  } catch (e) {
    if (!(e instanceof ConditionalCheckFailedException)) throw e;
    if (!isThisPut(e.Item, write.Put?.Item)) return [write.refusal ?? CHANGED];
  }
  committed([write]);
  crashPoint(`${name}:after-write`);
  return [];
}

// Whether `item` carries the stamp of a request, which no other request's item carries: it is
// stamped (an audited record), and this scope's author, whose stamp that is, names its request's id.
// And whether `found` (the item a failed condition returned, as DynamoDB's wire carries it) is then
// `item`'s own earlier write.
const requestStamped = (item: Record<string, unknown> | undefined) =>
  typeof item?.[CHANGED_BY] === 'string' && authoring.getStore()?.author?.requestId !== undefined;
const isThisPut = (found: Record<string, { S?: string }> | undefined, item: Record<string, unknown> | undefined) =>
  requestStamped(item) && found?.[CHANGED_BY]?.S === item?.[CHANGED_BY];

// The outbox: one item per partition that the change sends from, holding all it sends (so a change
// costs its transaction one item more, not one per event), kept OUTBOX_RETENTION_SECS. It carries
// the trace header of the work that wrote it, across the stream to the relay, so that what it
// sends stays in that trace; and a tenant's id, which the relay puts on what it sends, so that its
// consumers work for that tenant (lib/api/context.ts).

function outboxItems(node: Node, outgoing: Outgoing[]): TransactItem[] {
  if (!outgoing.length) return [];
  const ttl = Math.floor(Date.now() / 1000) + OUTBOX_RETENTION_SECS;
  const trace = currentTraceHeader();
  const byPartition = new Map<string, Outbound[]>();
  for (const { partition, ...out } of outgoing) byPartition.set(partition, [...(byPartition.get(partition) ?? []), out]);
  return [...byPartition].map(([partition, out]) => ({
    Put: {
      TableName: node.tables.main,
      // As JSON text: event data holds FSP metadata, which DynamoDB attributes cannot always hold.
      Item: {
        pk: partition,
        sk: `${OUTBOX_SORT_PREFIX}${out[0].kind === 'event' ? out[0].event.id : out[0].id}`,
        out: JSON.stringify(out),
        ttl,
        trace,
        ...(!node.tenant.operator && { tenant: node.tenant.id }),
      },
    },
  }));
}
