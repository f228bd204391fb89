import type { SQSRecord } from 'aws-lambda';
import { toLedger } from '../amounts';
import { noteLiquidityTaken } from '../assets';
import { event, type Outgoing } from '../events';
import { account, type Leg, transferItems } from '../ledger';
import { logger } from '../log';
import { countPayment } from '../metrics';
import { creditFor, intentView } from '../payment-intents';
import type { IntentRecord } from '../payment-intents/schemas';
import { closeOrCredit, findIntent, partition as intentPartition } from '../payment-intents/store';
import { commit } from '../tx';
import { finishPayment, paymentView } from '.';
import { giveUpRemote, type RemoteOutcome, sendRemote } from './remote';
import type { PaymentMessage, PaymentRecord } from './schemas';
import * as store from './store';

// The payment worker's work for one payment in state `sending`: one DynamoDB transaction moves
// the money (through both assets' liquidity accounts when the currencies differ), credits the
// intent, completes the payment and records the events. The transfer id `deliver:<payment>` and
// the state conditions make a second delivery of the same message a no-op. Permanent failures
// (intent closed, not enough destination liquidity) fail the payment and leave its funds in its
// account to withdraw; anything else is thrown, so the message is retried.
export type Outcome = 'completed' | 'failed' | 'skipped';
const ATTEMPTS = 5;

function legsFor(p: PaymentRecord, intentId: string, destinationAssetId: string, debit: bigint, receive: bigint): Leg[] {
  if (p.sourceAssetId === destinationAssetId) return [{ debit: account.payment(p.id), credit: account.intent(intentId), amount: receive }];
  return [
    { debit: account.payment(p.id), credit: account.liquidity(p.sourceAssetId), amount: debit },
    { debit: account.liquidity(destinationAssetId), credit: account.intent(intentId), amount: receive },
  ];
}

const fail = (p: PaymentRecord, reason: string) => finishPayment(p, 'failed', { reason });

// The payment record says where it goes; the message's intentId (a local payment's) only lets the
// worker read the payment and its intent at once.
async function deliverPayment(message: PaymentMessage, holder: string): Promise<Outcome | RemoteOutcome> {
  const { paymentId } = message;
  let intentId = message.intentId;
  if (!intentId) {
    const p = await store.findPayment(paymentId);
    if (p?.state !== 'sending') return 'skipped';
    if (p.ilp) return sendRemote(p, holder);
    if (!p.intentId) return 'skipped';
    intentId = p.intentId; // a message written before it carried the intent
  }
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    const [p, intent]: [PaymentRecord | undefined, IntentRecord | undefined] = await Promise.all([store.findPayment(paymentId), findIntent(intentId)]);
    if (p?.state !== 'sending' || p.intentId !== intentId) return 'skipped'; // done already, or never funded
    const destinationAssetId = p.destinationAssetId!;
    if (!intent) return fail(p, 'payment_intent_not_found');
    const state = intentView(intent).state;
    if (state === 'completed' || state === 'expired') return fail(p, `payment_intent_${state}`);

    const debit = toLedger(BigInt(p.debitAmount.value), p.debitAmount.assetScale);
    const receiveValue = BigInt(p.receiveAmount.value);
    const receive = toLedger(receiveValue, p.receiveAmount.assetScale);
    const received = BigInt(intent.received) + receiveValue;
    // Two quotes can each cover the intent's remaining amount; the later payment must not overpay
    // (the credit below is conditional on the received amount read here, so racing payments
    // decide one after the other). It fails instead, its funds left to withdraw.
    if (creditFor(intent, receiveValue) === undefined) return fail(p, 'amount_exceeds_remaining');
    const completes = intent.incomingValue !== null && received >= BigInt(intent.incomingValue);
    const now = new Date().toISOString();
    const creditedIntent: IntentRecord = {
      ...intent,
      received: received.toString(),
      state: completes ? 'completed' : 'processing',
      ...(completes && { completedAt: now }),
    };
    const completed = { ...p, state: 'completed' as const, sentAmount: p.debitAmount };

    const transfer = transferItems(`deliver:${p.id}`, legsFor(p, intentId, destinationAssetId, debit, receive));
    const items = [
      ...transfer.items,
      store.transition(p.id, 'sending', 'completed', { sentAmount: p.debitAmount, completedAt: now }),
      closeOrCredit(intent, { state: creditedIntent.state, received: creditedIntent.received, ...(completes && { completedAt: now }) }, now),
    ];
    const outgoing: Outgoing[] = [event(store.partition(p.id), 'payment.completed', paymentView(completed))];
    if (completes) outgoing.push(event(intentPartition(intent.id), 'payment_intent.completed', intentView(creditedIntent)));

    const failed = await commit(items, outgoing, 'payment-worker');
    if (!failed.length) {
      countPayment('completed');
      if (p.sourceAssetId !== destinationAssetId) await noteLiquidityTaken(destinationAssetId, receive);
      return 'completed';
    }
    const reasons = failed.map((i) => (i < transfer.failures.length ? transfer.failures[i] : i === transfer.items.length ? 'payment' : 'intent'));
    if (reasons.includes('transfer_exists') || reasons.includes('payment')) return 'skipped'; // a duplicate got there first
    if (reasons.includes(`insufficient:${account.liquidity(destinationAssetId)}`)) return fail(p, 'insufficient_liquidity');
    if (reasons.some((r) => r.startsWith('too_large:'))) return fail(p, 'balance_too_large');
    if (reasons.some((r) => r.startsWith('insufficient:'))) throw new Error(`Payment ${p.id}: its account holds less than its debit amount`);
    // The intent changed under us (another payment credited it, or it closed): decide again,
    // after a short random pause so that competing deliveries spread out.
    await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
  }
  throw new Error(`Payment ${paymentId}: the payment intent kept changing; retrying later`);
}

const isPaymentMessage = (body: unknown): body is PaymentMessage =>
  typeof (body as PaymentMessage)?.paymentId === 'string' && ['string', 'undefined'].includes(typeof (body as PaymentMessage)?.intentId);

// One message of the payments queue (see lib/queue.ts for retries). Its id names the attempt
// that sends a remote payment (lib/payments/remote.ts).
export async function handlePaymentMessage(body: unknown, record: SQSRecord): Promise<void> {
  if (!isPaymentMessage(body)) return logger.error('Dropping a payments message of unknown shape', { body });
  const outcome = await deliverPayment(body, record.messageId);
  logger.info('Payment delivery', { paymentId: body.paymentId, outcome });
}

// The last receive of a payment's message failed: fail the payment (its funds stay withdrawable)
// rather than leave it in `sending` with no message left to move it.
export async function giveUpPayment(body: unknown, _error: Error, record: SQSRecord): Promise<void> {
  if (!isPaymentMessage(body)) return;
  const p = await store.findPayment(body.paymentId);
  if (p?.state !== 'sending') return;
  await (p.ilp ? giveUpRemote(p, record.messageId) : fail(p, 'delivery_failed'));
}
