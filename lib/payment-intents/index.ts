import { randomUUID } from 'node:crypto';
import { type Amount, amountOf, fromLedger, toLedger } from '../amounts';
import { DomainError, invalidField, notFound } from '../errors';
import { event } from '../events';
import { account, settleAll } from '../ledger';
import { logger } from '../log';
import { conflictState, intentUrl } from '../resources';
import { commit } from '../tx';
import { findWalletRecordByUrl } from '../wallet-addresses';
import type { CreateIntent, IntentRecord, PaymentIntent } from './schemas';
import * as store from './store';

export { creditFor } from './credit';

// Payment intents (Open Payments incoming payments) on a recipient's wallet address:
// pending -> processing (received something) -> completed (received the incoming amount, or
// completed by the FSP), or -> expired (past expiresAt). Open intents are indexed by expiry.
export const MAX_INTENT_LIFETIME_SECS = 30 * 24 * 3600;

const asset = (r: IntentRecord) => ({ code: r.assetCode, scale: r.assetScale });
const isOpen = (r: IntentRecord, now = Date.now()) => (r.state === 'pending' || r.state === 'processing') && Date.parse(r.expiresAt) > now;

// Past its expiry an open intent reads as expired, even before the expirer has recorded it.
export function intentView(r: IntentRecord): PaymentIntent {
  const expired = (r.state === 'pending' || r.state === 'processing') && Date.parse(r.expiresAt) <= Date.now();
  return {
    id: r.id,
    url: intentUrl(r.id),
    walletAddress: r.walletAddress,
    incomingAmount: r.incomingValue === null ? null : amountOf(BigInt(r.incomingValue), asset(r)),
    receivedAmount: amountOf(BigInt(r.received), asset(r)),
    state: expired ? 'expired' : r.state,
    expiresAt: r.expiresAt,
    createdAt: r.createdAt,
    metadata: r.metadata,
  };
}

export function checkAmountAsset(a: Amount, expected: { code: string; scale: number }, field: string) {
  if (a.assetCode !== expected.code || a.assetScale !== expected.scale) {
    throw new DomainError(
      'unprocessable',
      'asset_mismatch',
      `${field} is in ${a.assetCode} at scale ${a.assetScale}, but must be in ${expected.code} at scale ${expected.scale}`,
    );
  }
}

// `client`: the Open Payments client creating it (through the resource server), if any.
export async function createIntent(input: CreateIntent, client?: string): Promise<IntentRecord> {
  const wallet = await findWalletRecordByUrl(input.walletAddress);
  if (!wallet) throw new DomainError('unprocessable', 'wallet_address_not_found', `No wallet address ${input.walletAddress}`);
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
  };
  // The intent's ledger account comes into being with its first credit.
  await commit([store.putIntent(record)], [event(store.partition(record.id), 'payment_intent.created', intentView(record))]);
  return record;
}

export async function getIntentRecord(id: string): Promise<IntentRecord> {
  const r = await store.findIntent(id);
  if (!r) throw notFound('payment intent', id);
  return r;
}

export const getIntent = async (id: string) => intentView(await getIntentRecord(id));

export async function completeIntent(id: string): Promise<IntentRecord> {
  const r = await getIntentRecord(id);
  if (!isOpen(r)) throw conflictState('Payment intent', id, intentView(r).state, 'completed');
  const now = new Date().toISOString();
  const done: IntentRecord = { ...r, state: 'completed', completedAt: now };
  const failed = await commit(
    [store.closeOrCredit(r, { state: 'completed', completedAt: now }, now)],
    [event(store.partition(id), 'payment_intent.completed', intentView(done))],
  );
  if (failed.length) return completeIntent(id); // it changed under us: decide again on fresh state
  return done;
}

// Moves everything the intent's account holds to the asset's settlement account: the FSP pays
// it out to the recipient's account.
export async function withdrawIntent(id: string) {
  const r = await getIntentRecord(id);
  const units = await settleAll(account.intent(id), account.settlementShard(r.assetId));
  return { ...intentView(r), withdrawnAmount: amountOf(fromLedger(units, r.assetScale), asset(r)) };
}

// Scheduled: records the expiry of open intents past expiresAt and emits payment_intent.expired.
export async function expireDueIntents(): Promise<number> {
  const now = new Date().toISOString();
  let expired = 0;
  for (const id of await store.listOpenExpiredBy(now)) {
    const r = await store.findIntent(id);
    if (!r) continue;
    if (r.state !== 'pending' && r.state !== 'processing') continue;
    const failed = await commit(
      [store.closeOrCredit(r, { state: 'expired' }, now)],
      [event(store.partition(id), 'payment_intent.expired', intentView({ ...r, state: 'expired' }))],
    );
    if (failed.length) logger.info('Intent changed while expiring; next run decides', { id });
    else expired++;
  }
  return expired;
}
