import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../platform/db';
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
  timeRange,
} from '../platform/store';
import type { Write } from '../platform/tx';
import { withMethodFields } from '../quotes/method';
import type { Node } from '../shared/node';
import { type PaymentRecord, type PaymentState, paymentStates } from './schemas';

const RECORD = 'PAYMENT';
const paymentKey = (node: Node, id: string) => recordKey(node, RECORD, id);
// The payment's partition, which holds its outbox items too.
export const partition = (node: Node, id: string) => paymentKey(node, id).pk;

// Each payment is listed twice in the Lists index, newest first, in partitions of its state (so
// that a list of one state reads only that state): its record under its wallet address, and a
// listing item beside it among all payments, spread over LIST_SHARDS partitions per state. Both
// move with each change of state, in its transaction. The listing item carries the receiver and
// the metadata (as the record does: JSON text), which the list's filters read.
const listingKey = (node: Node, id: string) => ({ pk: partition(node, id), sk: 'LISTED' });
const byWallet = (node: Node, walletAddressId: string, state: PaymentState) => scoped(node, `PAYMENTS#${walletAddressId}#${state}`);
const ALL = (state: PaymentState) => `PAYMENTS#${state}`;
const LIST_SHARDS = 4;
const sortKeyOf = (r: PaymentRecord) => `${r.createdAt}#${r.id}`;

const listingItem = (node: Node, r: PaymentRecord, state: PaymentState): Write => ({
  Put: {
    TableName: node.tables.main,
    Item: {
      ...listingKey(node, r.id),
      listPk: scoped(node, `${ALL(state)}#${shardOf(r.id, LIST_SHARDS)}`),
      listSk: sortKeyOf(r),
      receiver: r.receiver,
      metadata: JSON.stringify(r.metadata),
    },
  },
});

// The items that create a payment: its record and its listing. Its id is named by its quote, so its
// record's put takes the quote, once ('quote_taken' when a payment of it is there).
export const QUOTE_TAKEN = 'quote_taken';
export const insertPayment = (node: Node, r: PaymentRecord): Write[] => [
  {
    refusal: QUOTE_TAKEN,
    // Metadata as JSON text: the FSP's data need not fit DynamoDB's attribute rules.
    Put: {
      TableName: node.tables.main,
      Item: { ...paymentKey(node, r.id), ...r, metadata: JSON.stringify(r.metadata), listPk: byWallet(node, r.walletAddressId, r.state), listSk: sortKeyOf(r) },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  },
  listingItem(node, r, r.state),
];

// A state transition of the payment `r` that only happens from `from`: concurrent attempts make
// one change (the others are refused, 'payment_moved'). Its listings move to the new state (a
// payment recorded before they were kept gets them here).
export const PAYMENT_MOVED = 'payment_moved';
declare module '../platform/tx' {
  interface RefusalsOf {
    payments: typeof QUOTE_TAKEN | typeof PAYMENT_MOVED | 'packet_exists' | 'packet_settled' | typeof GRANT_SPENT_CHANGED;
  }
}
export function transition(node: Node, r: PaymentRecord, from: PaymentState, to: PaymentState, set: Record<string, unknown> = {}): Write[] {
  const names: Record<string, string> = { '#state': 'state' };
  const values: Record<string, unknown> = { ':from': from, ':to': to, ':listPk': byWallet(node, r.walletAddressId, to), ':listSk': sortKeyOf(r) };
  const sets = ['#state = :to', 'listPk = :listPk', 'listSk = :listSk'];
  for (const [k, v] of Object.entries(set)) {
    names[`#${k}`] = k;
    values[`:${k}`] = v;
    sets.push(`#${k} = :${k}`);
  }
  return [
    {
      refusal: PAYMENT_MOVED,
      Update: {
        TableName: node.tables.main,
        Key: paymentKey(node, r.id),
        UpdateExpression: `SET ${sets.join(', ')}`,
        ConditionExpression: '#state = :from',
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      },
    },
    listingItem(node, r, to),
  ];
}

const toRecord = ({ pk, sk, metadata, leaseHolder, leaseUntil, listPk, listSk, ...record }: Record<string, any>) =>
  withMethodFields({ ...record, metadata: JSON.parse(metadata) }) as PaymentRecord;

// The records of these payments (those that exist).
export const findPayments = async (node: Node, ids: string[]): Promise<PaymentRecord[]> =>
  (
    await getAll(
      node.tables.main,
      ids.map((id) => paymentKey(node, id)),
    )
  ).map(toRecord);

export const paymentLookup = (node: Node, id: string): Lookup<PaymentRecord> => ({ table: node.tables.main, key: paymentKey(node, id), read: toRecord });

export const findPayment = (node: Node, id: string) => getOne(paymentLookup(node, id));

// The ids of every payment in `funding` (its listing items' keys): those waiting for the FSP.
export async function listFundingIds(node: Node): Promise<string[]> {
  const shards = await Promise.all(
    shardKeys(node, ALL('funding'), LIST_SHARDS).map((listPk) =>
      queryAll({
        TableName: node.tables.main,
        IndexName: LISTS.index,
        KeyConditionExpression: 'listPk = :pk',
        ExpressionAttributeValues: { ':pk': listPk },
        ProjectionExpression: 'pk',
      }),
    ),
  );
  return shards.flat().map((i) => idOfKey(i.pk));
}

// A page of payments, newest first: of one wallet address (its records' partitions; null: an
// address with no wallet, so none) or of all (the listing items', then their records), in one
// state or any; created in [from, to) (a key condition), to one receiver, with a metadata key at
// a string value (filters: the partitions are read on until a page is full). The metadata is
// matched as JSON text (`"key":"value"`), then each record's top level checked.
export interface PaymentsFilter {
  walletAddressId?: string | null;
  state?: PaymentState;
  receiver?: string;
  metadata?: { key: string; value: string };
  from?: string;
  to?: string;
  limit: number;
  cursor?: string;
}
export async function listPayments(node: Node, q: PaymentsFilter): Promise<Page<PaymentRecord>> {
  const { walletAddressId, metadata } = q;
  const states = q.state ? [q.state] : paymentStates;
  const filters = [
    ...(q.receiver === undefined ? [] : [{ expression: '#receiver = :receiver', names: { '#receiver': 'receiver' }, values: { ':receiver': q.receiver } }]),
    ...(metadata === undefined
      ? []
      : [
          {
            expression: 'contains(#metadata, :pair)',
            names: { '#metadata': 'metadata' },
            values: { ':pair': `${JSON.stringify(metadata.key)}:${JSON.stringify(metadata.value)}` },
          },
        ]),
  ];
  const query = {
    table: node.tables.main,
    ...LISTS,
    limit: q.limit,
    cursor: q.cursor,
    ...timeRange(q),
    ...(filters.length && {
      filter: {
        expression: filters.map((f) => f.expression).join(' AND '),
        names: Object.assign({}, ...filters.map((f) => f.names)),
        values: Object.assign({}, ...filters.map((f) => f.values)),
      },
    }),
  };
  const page =
    walletAddressId === undefined
      ? await pageOfListed({ ...query, partitions: states.flatMap((s) => shardKeys(node, ALL(s), LIST_SHARDS)), recordKey: ({ pk }) => ({ pk, sk: RECORD }) })
      : await queryNewestFirst({ ...query, partitions: walletAddressId === null ? [] : states.map((s) => byWallet(node, walletAddressId, s)) });
  const items = page.items.map(toRecord).filter((r) => metadata === undefined || r.metadata?.[metadata.key] === metadata.value);
  return { items, nextCursor: page.nextCursor };
}

// A payment sent over Interledger records each paying packet in its partition, before the packet
// leaves: `pending` while its money is reserved, then `fulfilled` or `rejected` with the reply, or
// `unanswered` when no reply came before it expired: as Interledger says, the sender owes a packet
// only when its fulfillment arrives in time, so it is booked as rejected (its money returned to
// the payment) and listed under its peer for reconciliation (lib/payments/methods/ilp.ts). `unresolved`
// is what such a packet was before (booked as sent); records in that state keep their meaning.
type PacketState = 'pending' | 'fulfilled' | 'rejected' | 'unanswered' | 'unresolved';
export interface PacketRecord {
  id: string; // the packet's execution condition, hex
  state: PacketState;
  peerId: string;
  peerAssetId: string;
  source: string; // in the payment's asset, at its scale
  sourceUnits: string; // the same in ledger units
  peerUnits: string; // what the peer gets, in ledger units of its asset
  minDelivery: string; // what the receiver had to get for it (its asset, its scale)
  delivered?: string; // what the receiver got (fulfilled)
  expiresAt: string;
  createdAt: string;
}
const PACKET = 'PKT#';
// A packet is a payment's, or one this node forwarded from a peer (lib/payments/forward.ts): its
// record is in the payment's partition, or in one of its own (the peer it came from, and its id).
export type PacketOwner = { paymentId: string } | { forwardedFrom: string };
const ownerId = (o: PacketOwner) => ('paymentId' in o ? o.paymentId : o.forwardedFrom);
const packetKey = (node: Node, owner: PacketOwner, id: string) =>
  'paymentId' in owner
    ? { pk: partition(node, owner.paymentId), sk: `${PACKET}${id}` }
    : { pk: scoped(node, `FORWARD#${owner.forwardedFrom}#${id}`), sk: PACKET };
// Unanswered packets are listed per peer in the Lists index, by expiry.
const unansweredOf = (node: Node, peerId: string) => scoped(node, `UNANSWERED#${peerId}`);
// Forwarded packets are listed while pending, by expiry, so that one a crash left pending is found
// and booked once it has expired (there is no payment whose next attempt would).
const PENDING_FORWARDS = 'FORWARDS_PENDING';

export const putPacket = (node: Node, owner: PacketOwner, r: PacketRecord): Write => ({
  refusal: 'packet_exists',
  Put: {
    TableName: node.tables.main,
    Item: {
      ...packetKey(node, owner, r.id),
      ...r,
      ...('forwardedFrom' in owner && {
        forwardedFrom: owner.forwardedFrom,
        listPk: scoped(node, PENDING_FORWARDS),
        listSk: `${r.expiresAt}#${owner.forwardedFrom}#${r.id}`,
      }),
    },
    ConditionExpression: 'attribute_not_exists(pk)',
  },
});

// `listed`: for an unanswered packet, what its peer's listing shows besides the packet.
// `fulfillment` (hex): a forwarded packet's, to answer a repeat of it.
export const settlePacket = (
  node: Node,
  owner: PacketOwner,
  k: Pick<PacketRecord, 'id' | 'peerId' | 'expiresAt'>,
  state: Exclude<PacketState, 'pending' | 'unresolved'>,
  delivered?: bigint,
  listed?: { sourceAssetCode: string; sourceAssetScale: number; peerAssetCode: string; peerAssetScale: number },
  fulfillment?: string,
): Write => {
  const listing = state === 'unanswered' && listed;
  return {
    refusal: 'packet_settled',
    Update: {
      TableName: node.tables.main,
      Key: packetKey(node, owner, k.id),
      UpdateExpression:
        `SET #state = :to, settledAt = :now${delivered === undefined ? '' : ', delivered = :delivered'}` +
        (fulfillment === undefined ? '' : ', fulfillment = :fulfillment') +
        (listing ? `, listPk = :listPk, listSk = :listSk, ${'paymentId' in owner ? 'paymentId = :owner, ' : ''}listed = :listed` : ' REMOVE listPk, listSk'),
      ConditionExpression: '#state = :pending',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: {
        ':to': state,
        ':pending': 'pending',
        ':now': new Date().toISOString(),
        ...(delivered !== undefined && { ':delivered': delivered.toString() }),
        ...(fulfillment !== undefined && { ':fulfillment': fulfillment }),
        ...(listing && {
          ':listPk': unansweredOf(node, k.peerId),
          ':listSk': `${k.expiresAt}#${ownerId(owner)}#${k.id}`,
          ...('paymentId' in owner && { ':owner': owner.paymentId }),
          ':listed': listing,
        }),
      },
    },
  };
};

export interface UnansweredPacket extends PacketRecord {
  paymentId?: string; // a payment's packet
  forwardedFrom?: string; // a forwarded packet's: the peer it came from
  settledAt: string;
  listed: { sourceAssetCode: string; sourceAssetScale: number; peerAssetCode: string; peerAssetScale: number };
}
const toUnanswered = ({ pk, sk, listPk, listSk, ...r }: Record<string, any>) => r as UnansweredPacket;

export interface ForwardedPacket extends PacketRecord {
  forwardedFrom: string;
  fulfillment?: string;
}
const toForwarded = ({ pk, sk, listPk, listSk, settledAt, ...r }: Record<string, any>) => r as ForwardedPacket;

export async function findForwarded(node: Node, fromPeerId: string, id: string): Promise<ForwardedPacket | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: node.tables.main, Key: packetKey(node, { forwardedFrom: fromPeerId }, id), ConsistentRead: true }),
  );
  return Item && toForwarded(Item);
}

// Forwarded packets still pending that expired before `before` (ISO 8601).
export async function listPendingForwards(node: Node, before: string): Promise<ForwardedPacket[]> {
  const items = await queryAll({
    TableName: node.tables.main,
    IndexName: LISTS.index,
    KeyConditionExpression: 'listPk = :pk AND listSk < :before',
    ExpressionAttributeValues: { ':pk': scoped(node, PENDING_FORWARDS), ':before': before },
  });
  return items.map(toForwarded);
}

// A page of a peer's unanswered packets that expired in [from, to), newest first.
export async function pageUnanswered(
  node: Node,
  peerId: string,
  window: { from: string; to: string },
  limit: number,
  cursor?: string,
): Promise<Page<UnansweredPacket>> {
  const page = await queryNewestFirst({
    table: node.tables.main,
    index: 'Lists',
    partitionKey: 'listPk',
    sortKey: 'listSk',
    partitions: [unansweredOf(node, peerId)],
    limit,
    cursor,
    range: window, // the sort key starts with the expiry
  });
  return { items: page.items.map(toUnanswered), nextCursor: page.nextCursor };
}

// How many a peer's unanswered packets in [from, to) are, and what they come to in its asset
// (ledger units).
export async function unansweredTotal(node: Node, peerId: string, window: { from: string; to: string }): Promise<{ count: number; peerUnits: bigint }> {
  const items = await queryAll({
    TableName: node.tables.main,
    IndexName: 'Lists',
    KeyConditionExpression: 'listPk = :pk AND listSk BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': unansweredOf(node, peerId), ':from': window.from, ':to': window.to },
    // A key is "<expiry>#…", so none equals the bare time `to`: BETWEEN keeps to [from, to).
    ProjectionExpression: 'peerUnits',
  });
  return { count: items.length, peerUnits: items.reduce((t, i) => t + BigInt(i.peerUnits), 0n) };
}

// Every packet of a payment.
export async function listPackets(node: Node, paymentId: string): Promise<PacketRecord[]> {
  const items = await queryAll({
    TableName: node.tables.main,
    KeyConditionExpression: 'pk = :pk AND begins_with(sk, :packet)',
    ExpressionAttributeValues: { ':pk': partition(node, paymentId), ':packet': PACKET },
    ConsistentRead: true,
  });
  return items.map(({ pk, sk, settledAt, listPk, listSk, paymentId, listed, ...r }) => r as PacketRecord);
}

// One attempt at a time sends a payment: it holds a lease on the payment until `until` (epoch ms).
// The holder is the queue message's id, so that a redelivery of the message whose attempt died
// takes the lease over at once, while a duplicate message waits for it to expire.
export async function takeLease(node: Node, paymentId: string, holder: string, until: number): Promise<boolean> {
  try {
    // (Not stamped with an author: the audit trail records no lease, lib/audit NOT_CHANGES.)
    await db().send(
      new UpdateCommand({
        TableName: node.tables.main,
        Key: paymentKey(node, paymentId),
        UpdateExpression: 'SET leaseHolder = :holder, leaseUntil = :until',
        ConditionExpression: '#state = :sending AND (attribute_not_exists(leaseUntil) OR leaseUntil < :now OR leaseHolder = :holder)',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':holder': holder, ':until': until, ':now': Date.now(), ':sending': 'sending' },
      }),
    );
    return true;
  } catch (e) {
    if (e instanceof ConditionalCheckFailedException) return false;
    throw e;
  }
}

export const releaseLease = (node: Node, paymentId: string, holder: string): Write => ({
  Update: {
    TableName: node.tables.main,
    Key: paymentKey(node, paymentId),
    UpdateExpression: 'REMOVE leaseHolder, leaseUntil',
    ConditionExpression: 'leaseHolder = :holder',
    ExpressionAttributeValues: { ':holder': holder },
  },
});

// What an Open Payments grant's outgoing payments have charged against its limits: one item per
// grant and period (`TOTAL`, or the start of one interval of its `interval`), in the units of the
// debit and receive amounts. A payment's creation adds its charge on the condition that the item
// is still what was read, so two racing creations cannot both fit beside one reading
// ('grant_spent_changed'); its end gives back what did not leave. The assets are those of the
// first payment; `mixedReceive` marks payments to receivers in different assets, whose receive
// amounts do not add up.
export interface Spent {
  debit: bigint;
  receive: bigint;
}
export interface SpentItem extends Spent {
  debitAsset: { code: string; scale: number };
  receiveAsset: { code: string; scale: number };
  mixedReceive?: boolean;
}
const spentKey = (node: Node, grantId: string, period: string) => ({ pk: scoped(node, `OPGRANT#${grantId}`), sk: `SPENT#${period}` });
// An interval's item is kept a while after its interval, for a payment that ends later.
const SPENT_RETENTION_SECS = 30 * 24 * 3600;

export async function findSpent(node: Node, grantId: string, period: string): Promise<SpentItem | undefined> {
  const { Item } = await db().send(new GetCommand({ TableName: node.tables.main, Key: spentKey(node, grantId, period), ConsistentRead: true }));
  if (!Item) return undefined;
  const { debit, receive, debitAsset, receiveAsset, mixedReceive } = Item;
  return { debit: BigInt(debit), receive: BigInt(receive), debitAsset, receiveAsset, ...(mixedReceive && { mixedReceive: true }) };
}

export const GRANT_SPENT_CHANGED = 'grant_spent_changed';
// `after`: the item with the charge added.
export function spend(node: Node, grantId: string, period: string, seen: SpentItem | undefined, charge: SpentItem, after: SpentItem, periodEnd?: Date): Write {
  const ttl = periodEnd && Math.floor(periodEnd.getTime() / 1000) + SPENT_RETENTION_SECS;
  const mixed = after.mixedReceive && !seen?.mixedReceive;
  const sets = [
    'debitAsset = if_not_exists(debitAsset, :debitAsset)',
    'receiveAsset = if_not_exists(receiveAsset, :receiveAsset)',
    ...(ttl ? ['#ttl = :ttl'] : []),
    ...(mixed ? ['mixedReceive = :true'] : []),
  ];
  return {
    refusal: GRANT_SPENT_CHANGED,
    Update: {
      TableName: node.tables.main,
      Key: spentKey(node, grantId, period),
      UpdateExpression: `ADD debit :debit, receive :receive SET ${sets.join(', ')}`,
      ConditionExpression: seen ? 'debit = :seenDebit AND receive = :seenReceive' : 'attribute_not_exists(pk)',
      ...(ttl && { ExpressionAttributeNames: { '#ttl': 'ttl' } }),
      ExpressionAttributeValues: {
        ':debit': charge.debit,
        ':receive': charge.receive,
        ':debitAsset': charge.debitAsset,
        ':receiveAsset': charge.receiveAsset,
        ...(seen && { ':seenDebit': seen.debit, ':seenReceive': seen.receive }),
        ...(ttl && { ':ttl': ttl }),
        ...(mixed && { ':true': true }),
      },
    },
  };
}

export const giveBack = (node: Node, grantId: string, period: string, back: Spent): Write => ({
  Update: {
    TableName: node.tables.main,
    Key: spentKey(node, grantId, period),
    UpdateExpression: 'ADD debit :debit, receive :receive',
    ExpressionAttributeValues: { ':debit': -back.debit, ':receive': -back.receive },
  },
});

// A page of a wallet address's payments for Open Payments' cursor pagination (lib/platform/store.ts
// pageTwoWays): its records sit in one partition per state, which are read together.
export async function pageByWallet(
  node: Node,
  walletAddressId: string,
  opts: { size: number; direction: 'older' | 'newer'; cursor?: string; client?: string },
): Promise<{ records: PaymentRecord[]; hasNextPage: boolean; hasPreviousPage: boolean }> {
  const { cursor, ...rest } = opts;
  const partitions = paymentStates.map((s) => byWallet(node, walletAddressId, s));
  const { items, ...ends } = await pageTwoWays({ table: node.tables.main, partitions, ...rest, from: cursor });
  return { records: items.map(toRecord), ...ends };
}
export const cursorOf = (r: PaymentRecord) => sortKeyOf(r);
