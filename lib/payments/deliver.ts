import type { SQSRecord } from 'aws-lambda';
import { logger } from '../log';
import type { Node } from '../node';
import { findIntent } from '../payment-intents';
import { annotate } from '../tracing';
import { PAYMENT_ANNOTATION } from '.';
import { interledger } from './interledger';
import { local } from './local';
import type { PaymentMethod, SendOutcome } from './method';
import type { PaymentMessage, PaymentRecord } from './schemas';
import * as store from './store';

// The payment worker: one message of the payments queue is one attempt at sending a funded
// payment, by its payment method (./method.ts).
const methodOf = (p: PaymentRecord): PaymentMethod => (p.ilp ? interledger : local);

// A local payment's message names its intent, so that the payment and the intent are read at once.
async function deliverPayment(node: Node, message: PaymentMessage, attempt: string): Promise<SendOutcome> {
  annotate(PAYMENT_ANNOTATION, message.paymentId);
  const [p, intent] = await Promise.all([store.findPayment(node, message.paymentId), message.intentId ? findIntent(node, message.intentId) : undefined]);
  if (p?.state !== 'sending') return 'skipped'; // done already, or never funded
  if (message.intentId && p.intentId !== message.intentId) return 'skipped';
  return methodOf(p).send(node, p, attempt, message.intentId ? { intent } : undefined);
}

const isPaymentMessage = (body: unknown): body is PaymentMessage =>
  typeof (body as PaymentMessage)?.paymentId === 'string' && ['string', 'undefined'].includes(typeof (body as PaymentMessage)?.intentId);

// One message of the payments queue (see lib/queue.ts for retries). Its id names the attempt
// that sends a remote payment (lib/payments/interledger.ts).
export async function handlePaymentMessage(node: Node, body: unknown, record: SQSRecord): Promise<void> {
  if (!isPaymentMessage(body)) return logger.error('Dropping a payments message of unknown shape', { body });
  const outcome = await deliverPayment(node, body, record.messageId);
  logger.info('Payment delivery', { paymentId: body.paymentId, outcome });
}

// The last receive of a payment's message failed: fail the payment (its funds stay withdrawable)
// rather than leave it in `sending` with no message left to move it.
export async function giveUpPayment(node: Node, body: unknown, _error: Error, record: SQSRecord): Promise<void> {
  if (!isPaymentMessage(body)) return;
  const p = await store.findPayment(node, body.paymentId);
  if (p?.state !== 'sending') return;
  await methodOf(p).giveUp(node, p, record.messageId);
}
