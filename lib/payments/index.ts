import { randomUUID } from 'node:crypto';
import { amountOf, fromLedger, toLedger } from '../amounts';
import { DomainError, invalidField, notFound } from '../errors';
import { event, message, type Outgoing } from '../events';
import { account, refuseTooLarge, settleAll, transferItems } from '../ledger';
import { logger } from '../log';
import { countPayment } from '../metrics';
import type { Node } from '../node';
import { getPeerRecord } from '../peers';
import { RECONCILIATION_MAX_DAYS, type Reconciliation, type ReconciliationQuery } from '../peers/schemas';
import { findQuote, QUOTE_TAKEN, takeQuote } from '../quotes';
import { conflictState } from '../resources';
import type { Page } from '../store';
import { annotate } from '../tracing';
import { commit, type Write } from '../tx';
import { walletAddressIdOf } from '../wallet-addresses';
import { canonicalOrUndefined } from '../wallet-addresses/address';
import type { CreatePayment, ListPaymentsQuery, Payment, PaymentMessage, PaymentRecord } from './schemas';
import { mayWithdraw, type PaymentAction, TRANSITIONS } from './states';
import * as store from './store';

// Outgoing payments on a sender's wallet address (their state machine: ./states.ts). Funding moves the debit amount from the sender asset's settlement account into the payment's
// account and queues the payment for the worker (lib/payments/deliver.ts). Whatever acts on a
// payment annotates its trace with the payment's id, by which its traces are found (lib/tracing.ts).
export const PAYMENT_ANNOTATION = 'paymentId';

export function paymentView(r: PaymentRecord): Payment {
  return {
    id: r.id,
    walletAddress: r.walletAddress,
    quoteId: r.quoteId,
    receiver: r.receiver,
    debitAmount: r.debitAmount,
    receiveAmount: r.receiveAmount,
    sentAmount: r.sentAmount,
    state: r.state,
    ...(r.failureReason && { failureReason: r.failureReason }),
    createdAt: r.createdAt,
    metadata: r.metadata,
  };
}

export const findPayment = (node: Node, id: string) => store.findPayment(node, id);
export const findPayments = (node: Node, ids: string[]) => store.findPayments(node, ids);

export async function getPaymentRecord(node: Node, id: string): Promise<PaymentRecord> {
  const r = await store.findPayment(node, id);
  if (!r) throw notFound('payment', id);
  return r;
}

export const getPayment = async (node: Node, id: string) => paymentView(await getPaymentRecord(node, id));

export async function listPayments(node: Node, q: ListPaymentsQuery): Promise<Page<Payment>> {
  const walletAddressId = q.walletAddress === undefined ? undefined : await walletAddressIdOf(node, q.walletAddress, 'query.walletAddress');
  const page = await store.listPayments(node, { walletAddressId, state: q.state, limit: q.limit, cursor: q.cursor });
  return { items: page.items.map(paymentView), nextCursor: page.nextCursor };
}

export async function createPayment(node: Node, input: CreatePayment): Promise<Payment> {
  const quote = await findQuote(node, input.quoteId);
  if (!quote) throw new DomainError('unprocessable', 'quote_not_found', `No quote ${input.quoteId}`);
  if (quote.walletAddress !== canonicalOrUndefined(input.walletAddress, node.urls.walletAddresses)) {
    throw new DomainError('unprocessable', 'quote_wallet_mismatch', `Quote ${quote.id} was made for ${quote.walletAddress}, not ${input.walletAddress}`);
  }
  const quoteUsed = () => new DomainError('conflict', 'quote_used', `Quote ${quote.id} was already used`);
  const quoteExpired = () => new DomainError('unprocessable', 'quote_expired', `Quote ${quote.id} expired at ${quote.expiresAt}; create a new quote`);
  if (quote.paymentId) throw quoteUsed();
  const now = new Date().toISOString();
  if (quote.expiresAt <= now) throw quoteExpired();

  const record: PaymentRecord = {
    id: randomUUID(),
    walletAddress: quote.walletAddress,
    walletAddressId: quote.walletAddressId,
    quoteId: quote.id,
    receiver: quote.receiver,
    sourceAssetId: quote.sourceAssetId,
    ...(quote.intentId && { intentId: quote.intentId, destinationAssetId: quote.destinationAssetId }),
    ...(quote.ilp && { ilp: quote.ilp }),
    debitAmount: quote.debitAmount,
    receiveAmount: quote.receiveAmount,
    sentAmount: { ...quote.debitAmount, value: '0' },
    quoteExpiresAt: quote.expiresAt,
    state: 'funding',
    createdAt: now,
    metadata: input.metadata ?? null,
  };
  const view = paymentView(record);
  annotate(PAYMENT_ANNOTATION, record.id);
  const refusals = await commit(
    node,
    [...store.insertPayment(node, record), takeQuote(node, quote.id, record.id, now)],
    [event(store.partition(record.id), 'payment.created', view)],
  );
  if (refusals.includes(QUOTE_TAKEN)) throw (await findQuote(node, quote.id))?.paymentId ? quoteUsed() : quoteExpired();
  if (refusals.length) throw new Error(`Payment ${record.id} could not be created: ${refusals.join(', ')}`);
  return view;
}

// An Admin action on the payment as read; answers the payment as it is after. `build` gives the
// writes besides the transition (a transfer) and the events.
async function move(
  node: Node,
  id: string,
  action: PaymentAction,
  done: string,
  build: (r: PaymentRecord, next: PaymentRecord) => { writes?: Write[] | Promise<Write[]>; outgoing: Outgoing[] },
) {
  const { from, to } = TRANSITIONS[action];
  annotate(PAYMENT_ANNOTATION, id);
  const r = await getPaymentRecord(node, id);
  if (r.state !== from) throw conflictState('Payment', id, r.state, done);
  const next: PaymentRecord = { ...r, state: to };
  const { writes = [], outgoing } = build(r, next);
  const refusals = await commit(node, [...store.transition(node, r, from, to), ...(await writes)], outgoing);
  refuseTooLarge(refusals);
  if (refusals.length) throw conflictState('Payment', id, (await getPaymentRecord(node, id)).state, done);
  return paymentView(next);
}

export const fundPayment = (node: Node, id: string) =>
  move(node, id, 'fund', 'funded', (r, next) => {
    // Funding later would send at a rate nobody quoted; the FSP cancels and quotes again.
    if (r.quoteExpiresAt <= new Date().toISOString()) {
      throw new DomainError('unprocessable', 'quote_expired', `Payment ${r.id}'s quote expired at ${r.quoteExpiresAt}; cancel it and create a new quote`);
    }
    const units = toLedger(BigInt(r.debitAmount.value), r.debitAmount.assetScale);
    return {
      writes: transferItems(node, `fund:${r.id}`, [{ debit: account.settlement(r.sourceAssetId), credit: account.payment(r.id), amount: units }]),
      outgoing: [
        event(store.partition(r.id), 'payment.funded', paymentView(next)),
        // The intent's id rides along, so that the worker reads the payment and the intent at once.
        message(store.partition(r.id), node.queues.payments, { paymentId: r.id, intentId: r.intentId } satisfies PaymentMessage),
      ],
    };
  });

export async function cancelPayment(node: Node, id: string) {
  const cancelled = await move(node, id, 'cancel', 'cancelled', (r, next) => ({
    outgoing: [event(store.partition(r.id), 'payment.cancelled', paymentView(next))],
  }));
  countPayment('cancelled');
  return cancelled;
}

// Ends a payment that is being sent: completed, or failed with a reason; `sentAmount` when what
// was sent is known (over Interledger). Answers 'skipped' if it had left `sending` already.
export async function finishPayment(
  node: Node,
  p: PaymentRecord,
  state: 'completed' | 'failed',
  opts: { reason?: string; sentAmount?: PaymentRecord['sentAmount'] } = {},
) {
  const next: PaymentRecord = { ...p, state, ...(opts.sentAmount && { sentAmount: opts.sentAmount }), ...(opts.reason && { failureReason: opts.reason }) };
  const set = {
    ...(opts.sentAmount && { sentAmount: opts.sentAmount }),
    ...(state === 'completed' ? { completedAt: new Date().toISOString() } : { failureReason: opts.reason }),
  };
  if ((await commit(node, store.transition(node, p, 'sending', state, set), [event(store.partition(p.id), `payment.${state}`, paymentView(next))])).length)
    return 'skipped';
  if (state === 'failed') logger.warn('Payment failed', { paymentId: p.id, reason: opts.reason, sent: opts.sentAmount?.value });
  countPayment(state, opts.reason);
  return state;
}

// Settles what a payment's account still holds (all of it after a failure) back to the sender
// asset's settlement account. Not while the payment is being sent.
export async function withdrawPayment(node: Node, id: string) {
  annotate(PAYMENT_ANNOTATION, id);
  const r = await getPaymentRecord(node, id);
  if (!mayWithdraw(r.state)) throw conflictState('Payment', id, r.state, 'withdrawn from');
  const units = await settleAll(node, account.payment(id), r.sourceAssetId);
  const asset = { code: r.debitAmount.assetCode, scale: r.debitAmount.assetScale };
  return { ...paymentView(r), withdrawnAmount: amountOf(fromLedger(units, asset.scale), asset) };
}

// For reconciliation with a peer: the packets this node's payments sent it that got no answer
// before they expired, booked as not paid (lib/payments/interledger.ts), by expiry in [from, to). The
// peer compares them with what it credited from this node: a packet it credited is a fulfillment
// lost in flight, which Interledger has the receiver bear. The total covers the whole window.
const DAY_MS = 24 * 3600 * 1000;
export async function peerReconciliation(node: Node, peerId: string, query: ReconciliationQuery): Promise<Reconciliation> {
  const peer = await getPeerRecord(node, peerId);
  const to = query.to ? Date.parse(query.to) : Date.now();
  const from = query.from ? Date.parse(query.from) : to - DAY_MS;
  if (from >= to) throw invalidField('query.from', 'must be before to');
  if (to - from > RECONCILIATION_MAX_DAYS * DAY_MS) throw invalidField('query.from', `must be at most ${RECONCILIATION_MAX_DAYS} days before to`);
  const window = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
  const [page, total] = await Promise.all([
    store.pageUnanswered(node, peer.id, window, query.limit, query.cursor),
    store.unansweredTotal(node, peer.id, window),
  ]);
  const peerAsset = { code: peer.assetCode, scale: peer.assetScale };
  return {
    peerId: peer.id,
    ...window,
    total: { count: total.count, amount: amountOf(fromLedger(total.peerUnits, peer.assetScale), peerAsset) },
    items: page.items.map((k) => ({
      executionCondition: k.id,
      paymentId: k.paymentId,
      amount: amountOf(fromLedger(BigInt(k.peerUnits), peer.assetScale), peerAsset),
      paymentAmount: amountOf(BigInt(k.source), { code: k.listed.sourceAssetCode, scale: k.listed.sourceAssetScale }),
      sentAt: k.createdAt,
      expiresAt: k.expiresAt,
      bookedAt: k.settledAt,
    })),
    nextCursor: page.nextCursor,
  };
}
