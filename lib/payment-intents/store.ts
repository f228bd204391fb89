import {
  getAll,
  getOne,
  idOfKey,
  LISTS,
  type Lookup,
  type Page,
  pageOfListed,
  pageTwoWays,
  queryAll,
  queryNewestFirst,
  recordKey,
  scoped,
  shardKeys,
  shardOf,
} from '../platform/store';
import type { Write } from '../platform/tx';
import type { Node } from '../shared/node';
import { storedAs, UNCLOSED } from './credit';
import { type IntentRecord, type IntentState, intentStates } from './schemas';

// Payment intents. While an intent is open it carries `openPk` and `openExpiresAt`, the keys of the
// sparse index OpenIntents, which the expirer queries (all its shards); closing an intent removes
// them. Each intent is listed twice in the Lists index, newest first, by small listing items beside
// its record: under its wallet address (which Open Payments lists; the item carries what lists
// filter on: state, expiry, client), and among all intents, in partitions of its state (so that a
// list of one state reads only that state), spread over LIST_SHARDS partitions per state. Only a
// change of state rewrites a listing item, never a credit, so that many packets to intents of one
// wallet address do not all write one list's partition. (Records written before carry the wallet
// listing's keys themselves, until their next change of state moves them to a listing item.)
const RECORD = 'INTENT';
const intentKey = (node: Node, id: string) => recordKey(node, RECORD, id);
// The intent's partition, which holds its outbox items too.
export const partition = (node: Node, id: string) => intentKey(node, id).pk;
const OPEN = 'OPEN';
const OPEN_SHARDS = 16;
const byWallet = (node: Node, walletAddressId: string) => scoped(node, `INTENTS#${walletAddressId}`);
const listingKey = (node: Node, id: string) => ({ pk: partition(node, id), sk: 'LISTED' });
const walletListingKey = (node: Node, id: string) => ({ pk: partition(node, id), sk: 'LISTED_BY_WALLET' });
const ALL = (state: IntentState) => `INTENTS#${state}`;
const LIST_SHARDS = 4;

// The listing items carry the expiry, which lists by state filter on (an open intent past it
// reads as expired); the wallet's, the state and client too.
const listingItems = (node: Node, r: IntentRecord, state: IntentState): Write[] => [
  {
    Put: {
      TableName: node.tables.main,
      Item: {
        ...listingKey(node, r.id),
        listPk: scoped(node, `${ALL(state)}#${shardOf(r.id, LIST_SHARDS)}`),
        listSk: `${r.createdAt}#${r.id}`,
        expiresAt: r.expiresAt,
      },
    },
  },
  {
    Put: {
      TableName: node.tables.main,
      Item: {
        ...walletListingKey(node, r.id),
        listPk: byWallet(node, r.walletAddressId),
        listSk: `${r.createdAt}#${r.id}`,
        state,
        expiresAt: r.expiresAt,
        ...(r.client && { client: r.client }),
      },
    },
  },
];

// The items that create an intent: its record and its listings.
export const insertIntent = (node: Node, r: IntentRecord): Write[] => [
  {
    Put: {
      TableName: node.tables.main,
      Item: {
        ...intentKey(node, r.id),
        ...r,
        metadata: JSON.stringify(r.metadata),
        openPk: scoped(node, `${OPEN}#${shardOf(r.id, OPEN_SHARDS)}`),
        openExpiresAt: `${r.expiresAt}#${r.id}`,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  ...listingItems(node, r, r.state),
];

// Changes an unclosed intent (to `state`, and the fields given), on condition that it is unchanged
// since `r` was read (its state and received amount) and, unless it is expiring, not past its
// expiry; else refused as 'intent_changed'. A change of state moves its listing too (an intent
// recorded before listing items were kept gets one here), and a close takes it off the expirer's index.
export const INTENT_CHANGED = 'intent_changed';
declare module '../platform/tx' {
  interface RefusalsOf {
    'payment-intents': typeof INTENT_CHANGED;
  }
}
export type IntentChanges = { state: IntentState } & Partial<
  Pick<IntentRecord, 'received' | 'fee' | 'completedAt' | 'approvedAt' | 'cancelledAt' | 'cancelReason' | 'returnable' | 'returned'>
>;
export function changeIntent(node: Node, r: IntentRecord, changes: IntentChanges, now: string): Write[] {
  const expiring = changes.state === 'expired';
  const set = { received: r.received, ...changes };
  const names = Object.keys(set) as (keyof IntentChanges)[];
  const unlist = changes.state === r.state ? '' : ` REMOVE listPk, listSk${UNCLOSED.includes(changes.state) ? '' : ', openPk, openExpiresAt'}`;
  const update: Write = {
    refusal: INTENT_CHANGED,
    Update: {
      TableName: node.tables.main,
      Key: intentKey(node, r.id),
      UpdateExpression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}${unlist}`,
      ConditionExpression: `#state = :was AND #received = :wasReceived AND expiresAt ${expiring ? '<=' : '>'} :now`,
      ExpressionAttributeNames: Object.fromEntries(names.map((n) => [`#${n}`, n])),
      ExpressionAttributeValues: {
        ...Object.fromEntries(names.map((n) => [`:${n}`, set[n]])),
        ':was': r.state,
        ':wasReceived': r.received,
        ':now': now,
      },
    },
  };
  return changes.state === r.state ? [update] : [update, ...listingItems(node, r, changes.state)];
}

const toRecord = ({ pk, sk, openPk, openExpiresAt, listPk, listSk, metadata, ...record }: Record<string, any>) =>
  ({ ...record, metadata: JSON.parse(metadata) }) as IntentRecord;

// The records of these intents (those that exist).
export const findIntents = async (node: Node, ids: string[]): Promise<IntentRecord[]> =>
  (
    await getAll(
      node.tables.main,
      ids.map((id) => intentKey(node, id)),
    )
  ).map(toRecord);

export const intentLookup = (node: Node, id: string): Lookup<IntentRecord> => ({ table: node.tables.main, key: intentKey(node, id), read: toRecord });

export const findIntent = (node: Node, id: string) => getOne(intentLookup(node, id));

// A page of intents, newest first: of one wallet address (its records' partition; null: an address
// with no wallet, so none) or of all (the listing items', then their records), in one state (as
// stateOf reads it at `now`) or any.
export async function listIntents(
  node: Node,
  q: { walletAddressId?: string | null; state?: IntentState; limit: number; cursor?: string; now: string },
): Promise<Page<IntentRecord>> {
  const { walletAddressId, state, now } = q;
  const query = { table: node.tables.main, ...LISTS, limit: q.limit, cursor: q.cursor };
  if (walletAddressId === undefined) {
    const { states, pastExpiry } = state ? storedAs(state) : { states: intentStates, pastExpiry: undefined };
    const page = await pageOfListed({
      ...query,
      partitions: states.flatMap((s) => shardKeys(node, ALL(s), LIST_SHARDS)),
      // The partitions hold the stored states: only the expiry is left to filter on.
      ...(pastExpiry !== undefined && { filter: { expression: expiryCondition(pastExpiry), names: {}, values: { ':now': now } } }),
      recordKey: ({ pk }) => ({ pk, sk: RECORD }),
    });
    return { items: page.items.map(toRecord), nextCursor: page.nextCursor };
  }
  const page = await queryNewestFirst({
    ...query,
    partitions: walletAddressId === null ? [] : [byWallet(node, walletAddressId)],
    ...(state && { filter: inState(state, now) }),
  });
  return { items: await recordsOf(node, page.items), nextCursor: page.nextCursor };
}

// The records a wallet's list holds, in its order: its listing items' records, read in one
// BatchGetItem, and the records that still carry the listing's keys themselves.
async function recordsOf(node: Node, listed: Record<string, any>[]): Promise<IntentRecord[]> {
  const unread = listed.filter((i) => i.sk !== RECORD).map((i) => ({ pk: i.pk, sk: RECORD }));
  const read = new Map((await getAll(node.tables.main, unread)).map((i) => [i.pk as string, i]));
  return listed.flatMap((i) => {
    const record = i.sk === RECORD ? i : read.get(i.pk);
    return record ? [toRecord(record)] : [];
  });
}

const expiryCondition = (pastExpiry: boolean) => `expiresAt ${pastExpiry ? '<=' : '>'} :now`;

// A filter on records: those that read as `state` at `now`.
function inState(state: IntentState, now: string) {
  const { states, pastExpiry } = storedAs(state);
  const values: Record<string, string> = Object.fromEntries(states.map((s, i) => [`:state${i}`, s]));
  const conditions = [`#state IN (${Object.keys(values).join(', ')})`];
  if (pastExpiry !== undefined) {
    conditions.push(expiryCondition(pastExpiry));
    values[':now'] = now;
  }
  return { expression: conditions.join(' AND '), names: { '#state': 'state' }, values };
}

export async function listOpenExpiredBy(node: Node, now: string): Promise<string[]> {
  const shards = await Promise.all(
    shardKeys(node, OPEN, OPEN_SHARDS).map((open) =>
      queryAll({
        TableName: node.tables.main,
        IndexName: 'OpenIntents',
        KeyConditionExpression: 'openPk = :open AND openExpiresAt <= :now',
        ExpressionAttributeValues: { ':open': open, ':now': `${now}#~` },
      }),
    ),
  );
  return shards.flat().map((i) => idOfKey(i.pk));
}

// A page of a wallet address's intents, newest first, for Open Payments' cursor pagination:
// `first` after the cursor (older), or `last` before it (newer). Cursors are the listing's sort
// keys (createdAt#id), opaque to clients. With `client`, only the intents that client created.
export interface IntentPage {
  records: IntentRecord[];
  hasNextPage: boolean; // older ones follow
  hasPreviousPage: boolean; // newer ones precede
}

export async function pageByWallet(
  node: Node,
  walletAddressId: string,
  opts: { size: number; direction: 'older' | 'newer'; cursor?: string; client?: string },
): Promise<IntentPage> {
  const { cursor, ...rest } = opts;
  const { items, ...ends } = await pageTwoWays({ table: node.tables.main, partitions: [byWallet(node, walletAddressId)], ...rest, from: cursor });
  return { records: await recordsOf(node, items), ...ends };
}

export const cursorOf = (r: IntentRecord) => `${r.createdAt}#${r.id}`;
