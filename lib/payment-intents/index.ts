import { randomUUID } from 'node:crypto';
import { type Amount, amountOf, fromLedger, toLedger } from '../amounts';
import { feesOf } from '../assets';
import { commonErrors, invalidField } from '../errors';
import { event, type Outgoing } from '../events';
import { account, settleAll } from '../ledger';
import { logger } from '../log';
import type { Node } from '../node';
import { intentUrl } from '../resources';
import type { Page } from '../store';
import { commit, type Refusals, type Write } from '../tx';
import { findWalletRecordByUrl, walletAddressIdOf } from '../wallet-addresses';
import { walletAddressErrors } from '../wallet-addresses/errors';
import { afterCredit, creditFor, feeOfCredit, isOpen, stateOf } from './credit';
import { intentErrors } from './errors';
import type { CreateIntent, IntentRecord, ListIntentsQuery, PaymentIntent } from './schemas';
import * as store from './store';

export const findIntent = (node: Node, id: string) => store.findIntent(node, id);
export const findIntents = (node: Node, ids: string[]) => store.findIntents(node, ids);
export { cursorOf } from './store';
export const pageIntentsByWallet = (node: Node, walletAddressId: string, opts: Parameters<typeof store.pageByWallet>[2]) =>
  store.pageByWallet(node, walletAddressId, opts);

// Payment intents (Open Payments incoming payments) on a recipient's wallet address:
// pending -> processing (received something) -> completed (received the incoming amount, or
// completed by the FSP), or -> expired (past expiresAt). Open intents are indexed by expiry.
export const MAX_INTENT_LIFETIME_SECS = 30 * 24 * 3600;

const asset = (r: IntentRecord) => ({ code: r.assetCode, scale: r.assetScale });

export function intentView(node: Node, r: IntentRecord): PaymentIntent {
  return {
    id: r.id,
    url: intentUrl(node, r.id),
    walletAddress: r.walletAddress,
    incomingAmount: r.incomingValue === null ? null : amountOf(BigInt(r.incomingValue), asset(r)),
    paidAmount: amountOf(BigInt(r.received), asset(r)),
    receivedAmount: amountOf(BigInt(r.received) - BigInt(r.fee ?? '0'), asset(r)),
    receivingFee: amountOf(BigInt(r.fee ?? '0'), asset(r)),
    state: stateOf(r),
    expiresAt: r.expiresAt,
    createdAt: r.createdAt,
    metadata: r.metadata,
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

// `client`: the Open Payments client creating it (through the resource server), if any.
export async function createIntent(node: Node, input: CreateIntent, client?: string): Promise<IntentRecord> {
  const wallet = await findWalletRecordByUrl(node, input.walletAddress);
  if (!wallet) throw walletAddressErrors.unknown(input.walletAddress);
  const fees = feesOf(node, wallet.assetId);
  fees.catch(() => undefined); // awaited once the input is checked
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
  const { receivingFee } = await fees;
  const record: IntentRecord = {
    id: randomUUID(),
    walletAddress: wallet.address,
    walletAddressId: wallet.id,
    assetId: wallet.assetId,
    assetCode: wallet.assetCode,
    assetScale: wallet.assetScale,
    incomingValue: input.incomingAmount?.value ?? null,
    received: '0',
    state: 'pending',
    expiresAt,
    createdAt: new Date(now).toISOString(),
    metadata: input.metadata ?? null,
    ...(client && { client }),
    ...(receivingFee && { receivingFee }), // kept: a later change of the asset's fee does not touch it
  };
  // The intent's ledger account comes into being with its first credit.
  await commit(node, store.insertIntent(node, record), [event(store.partition(node, record.id), 'payment_intent.created', intentView(node, record))]);
  return record;
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
  const done: IntentRecord = { ...r, state: 'completed', completedAt: now };
  const refusals = await commit(node, store.closeOrCredit(node, r, { state: 'completed', completedAt: now }, now), [
    event(store.partition(node, id), 'payment_intent.completed', intentView(node, done)),
  ]);
  if (refusals.length) return completeIntent(node, id); // it changed under us: decide again on fresh state
  return done;
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
    if (r.state !== 'pending' && r.state !== 'processing') continue;
    const refusals = await commit(node, store.closeOrCredit(node, r, { state: 'expired' }, now), [
      event(store.partition(node, id), 'payment_intent.expired', intentView(node, { ...r, state: 'expired' })),
    ]);
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
  | { kind: 'closed'; state: 'completed' | 'expired' }
  | { kind: 'exceeds'; incoming: bigint; received: bigint } // would pass incomingAmount
  | { kind: 'expired_packet' } // the caller's deadline passed before it could be credited
  | { kind: 'refused'; refusals: Refusals } // the caller's writes or the transfer were refused
  | { kind: 'busy' }; // the intent kept changing

export interface Crediting {
  amount: bigint; // in the intent's asset, at its scale
  oneUnitLess?: bigint; // see creditFor
  // The caller's writes for a credit of `credit`, of which `fee` goes to the intent asset's fee account.
  writes: (credit: bigint, fee: bigint) => Promise<Write[]>;
  outgoing?: Outgoing[];
  deadline?: Date; // no credit after it (a packet's expiry)
  attempts: number;
  name: string; // for injected faults
}

export async function creditIntent(node: Node, read: IntentRecord | undefined, c: Crediting): Promise<CreditOutcome> {
  let intent = read;
  for (let attempt = 1; attempt <= c.attempts; attempt++) {
    if (!intent) return { kind: 'not_found' };
    const state = stateOf(intent);
    if (state === 'completed' || state === 'expired') return { kind: 'closed', state };
    const credit = creditFor(intent, c.amount, c.oneUnitLess);
    if (credit === undefined) return { kind: 'exceeds', incoming: BigInt(intent.incomingValue!), received: BigInt(intent.received) };
    if (c.deadline && c.deadline.getTime() <= Date.now()) return { kind: 'expired_packet' };
    const now = new Date().toISOString();
    const fee = feeOfCredit(intent, credit);
    const after = afterCredit(intent, credit, fee, now);
    const changes = { state: after.state, received: after.received, fee: after.fee, ...(after.completedAt && { completedAt: after.completedAt }) };
    const outgoing = [...(c.outgoing ?? [])];
    if (after.state === 'completed') outgoing.push(event(store.partition(node, intent.id), 'payment_intent.completed', intentView(node, after)));
    const refusals = await commit(node, [...(await c.writes(credit, fee)), ...store.closeOrCredit(node, intent, changes, now)], outgoing, c.name);
    if (!refusals.length) return { kind: 'credited', credit };
    if (refusals.some((r) => r !== store.INTENT_CHANGED)) return { kind: 'refused', refusals };
    // Decide again on the intent as it is now, after a short random pause so that competing
    // credits spread out.
    await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
    intent = await store.findIntent(node, intent.id);
  }
  return { kind: 'busy' };
}
