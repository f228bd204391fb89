import { feesOf } from '../assets';
import { account, insufficient, type Leg, settleAll, transfer } from '../ledger';
import { event, type Outgoing } from '../platform/events';
import { newId } from '../platform/ids';
import { logger } from '../platform/log';
import { countPaymentReceived } from '../platform/metrics';
import { type Page, readTogether } from '../platform/store';
import { commit, type Refusals, type Write } from '../platform/tx';
import { type Amount, amountOf, fromLedger, toLedger } from '../shared/amounts';
import { commonErrors, invalidField } from '../shared/errors';
import type { Node } from '../shared/node';
import { intentUrl } from '../shared/resources';
import { activeWalletRecord, isActive, requiresApproval, standingNow, walletAddressIdOf } from '../wallet-addresses';
import { afterCredit, creditEntry, creditFor, feeOfCredit, isOpen, isShort, parseCredit, stateOf, UNCLOSED } from './credit';
import { intentErrors } from './errors';
import type { CreateIntent, IntentRecord, ListIntentsQuery, PaymentIntent } from './schemas';
import * as store from './store';

export const findIntent = (node: Node, id: string) => store.findIntent(node, id);
export const findIntents = (node: Node, ids: string[]) => store.findIntents(node, ids);
export { cursorOf, intentLookup } from './store';
export const pageIntentsByWallet = (node: Node, walletAddressId: string, opts: Parameters<typeof store.pageByWallet>[2]) =>
  store.pageByWallet(node, walletAddressId, opts);

// Payment intents (Open Payments incoming payments) on a recipient's wallet address:
// [pending_approval -> (approve)] pending -> processing (received something) -> completed (received
// the incoming amount, or completed by the FSP), or -> expired (past expiresAt); pending_approval
// -> (cancel) cancelled. An intent starts pending_approval when its wallet address requires approval
// (lib/wallet-addresses requiresApproval), and takes nothing until approved. Unclosed intents are
// indexed by expiry.
export const MAX_INTENT_LIFETIME_SECS = 30 * 24 * 3600;

const asset = (r: IntentRecord) => ({ code: r.assetCode, scale: r.assetScale });
// What the intent's payers paid (`received`) less its receiving fee: what its account was credited.
const credited = (r: IntentRecord) => BigInt(r.received) - BigInt(r.fee ?? '0');

export function intentView(node: Node, r: IntentRecord): PaymentIntent {
  return {
    id: r.id,
    url: intentUrl(node, r.id),
    walletAddress: r.walletAddress,
    incomingAmount: r.incomingValue === null ? null : amountOf(BigInt(r.incomingValue), asset(r)),
    paidAmount: amountOf(BigInt(r.received), asset(r)),
    receivedAmount: amountOf(credited(r), asset(r)),
    receivingFee: amountOf(BigInt(r.fee ?? '0'), asset(r)),
    state: stateOf(r),
    expiresAt: r.expiresAt,
    createdAt: r.createdAt,
    ...(r.approvedAt && { approvedAt: r.approvedAt }),
    ...(r.cancelledAt && { cancelledAt: r.cancelledAt, cancelReason: r.cancelReason }),
    ...((r.state === 'completed' || r.state === 'expired') && isShort(r) && { partialPayment: partialPaymentOf(r) }),
    metadata: r.metadata,
  };
}

// What stayed on an intent closed short: what it was credited (its receiving fee is the FSP's), less
// what went back to its local payments.
function partialPaymentOf(r: IntentRecord): NonNullable<PaymentIntent['partialPayment']> {
  const returns = (r.returned ?? []).map(parseCredit);
  const returned = returns.reduce((total, { value }) => total + value, 0n);
  return {
    keptAmount: amountOf(credited(r) - returned, asset(r)),
    returnedAmount: amountOf(returned, asset(r)),
    returnedTo: returns.map(({ paymentId, value }) => ({ paymentId, amount: amountOf(value, asset(r)) })),
  };
}

export async function listIntents(node: Node, q: ListIntentsQuery): Promise<Page<PaymentIntent>> {
  const walletAddressId = q.walletAddress === undefined ? undefined : await walletAddressIdOf(node, q.walletAddress, 'walletAddress');
  const page = await store.listIntents(node, { walletAddressId, state: q.state, limit: q.limit, cursor: q.cursor, now: new Date().toISOString() });
  return { items: page.items.map((r) => intentView(node, r)), nextCursor: page.nextCursor };
}

export function checkAmountAsset(a: Amount, expected: { code: string; scale: number }, field: string) {
  if (a.assetCode !== expected.code || a.assetScale !== expected.scale) {
    throw intentErrors.assetMismatch(field, a.assetCode, a.assetScale, expected.code, expected.scale);
  }
}

// `client`: the Open Payments client creating it (through the resource server), if any. `id`: one
// chosen before (an SPSP connection's, lib/ilp/spsp.ts); an intent made with it already is answered.
export async function createIntent(node: Node, input: CreateIntent, client?: string, id: string = newId()): Promise<IntentRecord> {
  const wallet = await activeWalletRecord(node, input.walletAddress);
  // Its asset's fees and its standing now, in one read; awaited once the input is checked.
  const reads = readTogether(() => Promise.all([feesOf(node, wallet.assetId), standingNow(node, wallet)]));
  reads.catch(() => undefined);
  const now = Date.now();
  let expiresAt = new Date(now + MAX_INTENT_LIFETIME_SECS * 1000).toISOString();
  if (input.expiresAt !== undefined) {
    const at = Date.parse(input.expiresAt);
    if (at <= now) throw invalidField('expiresAt', 'must be in the future');
    if (at > now + MAX_INTENT_LIFETIME_SECS * 1000) throw invalidField('expiresAt', 'must be at most 30 days from now');
    expiresAt = new Date(at).toISOString();
  }
  if (input.incomingAmount) {
    checkAmountAsset(input.incomingAmount, { code: wallet.assetCode, scale: wallet.assetScale }, 'incomingAmount');
    if (input.incomingAmount.value === '0') throw invalidField('incomingAmount.value', 'must be greater than 0');
    toLedger(BigInt(input.incomingAmount.value), wallet.assetScale, 'incomingAmount.value');
  }
  const [{ receivingFee }, current] = await reads;
  const record: Omit<IntentRecord, 'state'> = {
    id,
    walletAddress: wallet.address,
    walletAddressId: wallet.id,
    assetId: wallet.assetId,
    assetCode: wallet.assetCode,
    assetScale: wallet.assetScale,
    incomingValue: input.incomingAmount?.value ?? null,
    received: '0',
    expiresAt,
    createdAt: new Date(now).toISOString(),
    metadata: input.metadata ?? null,
    ...(client && { client }),
    ...(receivingFee && { receivingFee }), // kept: a later change of the asset's fee does not touch it
  };
  return insertIntent(node, { ...record, state: requiresApproval(node, current) ? 'pending_approval' : 'pending' });
}

// The intent's ledger account comes into being with its first credit.
async function insertIntent(node: Node, record: IntentRecord): Promise<IntentRecord> {
  const refusals = await commit(node, store.insertIntent(node, record), [
    event(store.partition(node, record.id), 'payment_intent.created', intentView(node, record)),
  ]);
  return refusals.length ? ((await store.findIntent(node, record.id)) ?? record) : record; // made meanwhile with its id
}

export async function getIntentRecord(node: Node, id: string): Promise<IntentRecord> {
  const r = await store.findIntent(node, id);
  if (!r) throw intentErrors.notFound(id);
  return r;
}

export const getIntent = async (node: Node, id: string) => intentView(node, await getIntentRecord(node, id));

export async function completeIntent(node: Node, id: string): Promise<IntentRecord> {
  const r = await getIntentRecord(node, id);
  if (!isOpen(r)) throw commonErrors.invalidState('Payment intent', id, stateOf(r), 'completed');
  const now = new Date().toISOString();
  const { refusals, closed } = await close(node, r, { state: 'completed', completedAt: now }, now);
  if (refusals.length) return completeIntent(node, id); // it changed under us: decide again on fresh state
  return closed;
}

// Closes an unclosed intent (completed or expired) with its event. One closed short of its
// incomingAmount under INCOMING_PARTIAL_PAYMENTS=return gives what its local payments credited
// back to their accounts, in the same transaction; what its account no longer holds (the FSP
// withdrew it meanwhile) it cannot, and then keeps it all.
async function close(node: Node, r: IntentRecord, changes: store.IntentChanges, now: string, returning = true) {
  const returns = returning && node.incoming.partialPayments === 'return' && isShort(r) ? (r.returnable ?? []) : [];
  const all: store.IntentChanges = { ...changes, ...(returns.length && { returned: returns }) };
  const closed: IntentRecord = { ...r, ...all };
  const legs = returns.map(parseCredit).map(
    ({ paymentId, value }): Leg => ({
      debit: account.intent(r.id),
      credit: account.payment(paymentId),
      amount: toLedger(value, r.assetScale),
    }),
  );
  const refusals = await commit(
    node,
    [
      ...store.changeIntent(node, r, all, now),
      ...(legs.length ? await transfer(node, `return:${r.id}`, { kind: 'return', resource: { type: 'payment_intent', id: r.id } }, legs) : []),
    ],
    [event(store.partition(node, r.id), `payment_intent.${changes.state}`, intentView(node, closed))],
  );
  if (refusals.includes(insufficient(account.intent(r.id)))) return close(node, r, changes, now, false);
  return { refusals, closed };
}

// The FSP's decision on an intent held for approval: approved, it takes payments (pending);
// cancelled, it never will, and keeps the reason. From any other state 409; of two decisions at
// once, the first to commit wins (the change is conditional on the state read) and the other is 409.
export const approveIntent = (node: Node, id: string) => decide(node, id, 'approved', (at) => ({ state: 'pending', approvedAt: at }));
export const cancelIntent = (node: Node, id: string, reason: string) =>
  decide(node, id, 'cancelled', (at) => ({ state: 'cancelled', cancelledAt: at, cancelReason: reason }));

async function decide(node: Node, id: string, verb: 'approved' | 'cancelled', changes: (at: string) => store.IntentChanges): Promise<IntentRecord> {
  const r = await getIntentRecord(node, id);
  const state = stateOf(r);
  if (state !== 'pending_approval') throw commonErrors.invalidState('Payment intent', id, state, verb);
  const now = new Date().toISOString();
  const change = changes(now);
  const decided: IntentRecord = { ...r, ...change };
  const refusals = await commit(node, store.changeIntent(node, r, change, now), [
    event(store.partition(node, id), `payment_intent.${verb}`, intentView(node, decided)),
  ]);
  if (refusals.length) return decide(node, id, verb, changes); // decided meanwhile, or expired: 409 on the state as it is
  return decided;
}

// Moves everything the intent's account holds to the asset's settlement account: the FSP pays
// it out to the recipient's account.
export async function withdrawIntent(node: Node, id: string) {
  const r = await getIntentRecord(node, id);
  const units = await settleAll(node, account.intent(id), r.assetId, { type: 'payment_intent', id });
  return { ...intentView(node, r), withdrawnAmount: amountOf(fromLedger(units, r.assetScale), asset(r)) };
}

// Scheduled: records the expiry of open intents past expiresAt and emits payment_intent.expired.
export async function expireDueIntents(node: Node): Promise<number> {
  const now = new Date().toISOString();
  let expired = 0;
  for (const id of await store.listOpenExpiredBy(node, now)) {
    const r = await store.findIntent(node, id);
    if (!r) continue;
    if (!UNCLOSED.includes(r.state)) continue;
    const { refusals } = await close(node, r, { state: 'expired' }, now);
    if (refusals.length) logger.info('Intent changed while expiring; next run decides', { id });
    else expired++;
  }
  return expired;
}

// Crediting an intent, the one way both the payment worker (a local payment) and the connector's
// STREAM receiver (a packet) do it: decide on the intent as read, then commit the caller's writes
// for the credited amount (its transfer, its own state change) with the intent's new received
// amount and state, conditional on the intent being unchanged since the read, and emit
// payment_intent.completed when it completes. An intent that changed meanwhile (another payment
// credited it, or it closed) is read again and decided afresh, up to `attempts` times.
export type CreditOutcome =
  | { kind: 'credited'; credit: bigint }
  | { kind: 'not_found' }
  | { kind: 'held' } // pending_approval: it takes nothing until the FSP approves it
  | { kind: 'inactive' } // its wallet address is inactive: it takes nothing while it is
  | { kind: 'closed'; state: 'completed' | 'expired' | 'cancelled' }
  | { kind: 'exceeds'; incoming: bigint; received: bigint } // would pass incomingAmount
  | { kind: 'expired_packet' } // the caller's deadline passed before it could be credited
  | { kind: 'refused'; refusals: Refusals } // the caller's writes or the transfer were refused
  | { kind: 'busy' }; // the intent kept changing

export interface Crediting {
  amount: bigint; // in the intent's asset, at its scale
  // A local payment in the intent's asset, whose account takes the credit back if the intent closes
  // short under INCOMING_PARTIAL_PAYMENTS=return (Interledger's packets and conversions cannot be undone).
  returnTo?: string;
  oneUnitLess?: bigint; // see creditFor
  // The caller's writes for a credit of `credit`, of which `fee` goes to the intent asset's fee account.
  writes: (credit: bigint, fee: bigint) => Promise<Write[]>;
  outgoing?: Outgoing[];
  deadline?: Date; // no credit after it (a packet's expiry)
  attempts: number;
  name: string; // for injected faults
  via: 'local' | 'interledger'; // how the payment came, for the count of payments received
  active?: boolean; // the intent's wallet address's status, if the caller read it already
}

export async function creditIntent(node: Node, read: IntentRecord | undefined, c: Crediting): Promise<CreditOutcome> {
  let intent = read;
  // Its wallet address's status, read afresh: a freeze holds for every credit that starts after it
  // (docs/api.md, "Wallet address status"). The payment worker reads it with the payment and intent
  // (one round trip for the three); others read it here, beside their own work.
  const active = intent && (c.active === undefined ? isActive(node, intent.walletAddress) : Promise.resolve(c.active));
  active?.catch(() => undefined); // awaited before the first commit
  for (let attempt = 1; attempt <= c.attempts; attempt++) {
    if (!intent) return { kind: 'not_found' };
    const state = stateOf(intent);
    if (state === 'pending_approval') return { kind: 'held' };
    if (state === 'completed' || state === 'expired' || state === 'cancelled') return { kind: 'closed', state };
    const credit = creditFor(intent, c.amount, c.oneUnitLess);
    if (credit === undefined) return { kind: 'exceeds', incoming: BigInt(intent.incomingValue!), received: BigInt(intent.received) };
    if (c.deadline && c.deadline.getTime() <= Date.now()) return { kind: 'expired_packet' };
    const now = new Date().toISOString();
    const fee = feeOfCredit(intent, credit);
    const after = afterCredit(intent, credit, fee, now);
    const returnable = c.returnTo && node.incoming.partialPayments === 'return' && intent.incomingValue !== null;
    const changes: store.IntentChanges = {
      state: after.state,
      received: after.received,
      ...(after.fee !== undefined && { fee: after.fee }),
      ...(after.completedAt && { completedAt: after.completedAt }),
      // What the payment's account takes back is what the intent was credited: the fee stays the FSP's.
      ...(returnable && { returnable: [...(intent.returnable ?? []), creditEntry(c.returnTo!, credit - fee)] }),
    };
    const outgoing = [...(c.outgoing ?? [])];
    if (after.state === 'completed') outgoing.push(event(store.partition(node, intent.id), 'payment_intent.completed', intentView(node, after)));
    const writes = [...(await c.writes(credit, fee)), ...store.changeIntent(node, intent, changes, now)];
    if (!(await active)) return { kind: 'inactive' };
    const refusals = await commit(node, writes, outgoing, c.name);
    if (!refusals.length) {
      // A packet after the first of an Interledger payment is more of the same payment.
      if (c.via === 'local' || BigInt(intent.received) === 0n) countPaymentReceived(c.via);
      return { kind: 'credited', credit };
    }
    if (refusals.some((r) => r !== store.INTENT_CHANGED)) return { kind: 'refused', refusals };
    // Decide again on the intent as it is now, after a short random pause so that competing
    // credits spread out.
    await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    intent = await store.findIntent(node, intent.id);
  }
  return { kind: 'busy' };
}
