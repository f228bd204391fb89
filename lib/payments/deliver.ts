import type { SQSRecord } from 'aws-lambda';
import { logger } from '../platform/log';
import { readTogether } from '../platform/store';
import { annotate } from '../platform/tracing';
import type { Node } from '../shared/node';
import { PAYMENT_ANNOTATION } from '.';
import { readAhead, sending } from './methods';
import type { SendOutcome } from './methods/method';
import type { PaymentMessage } from './schemas';
import * as store from './store';

// The payment worker: one message of the payments queue is one attempt at sending a funded
// payment, by the payment method its quote chose (./methods).
async function deliverPayment(node: Node, message: PaymentMessage, attempt: string): Promise<SendOutcome> {
  annotate(PAYMENT_ANNOTATION, message.paymentId);
  // The payment and what its method reads ahead (a local one: its intent and wallet address status), in one read.
  const [p, ahead] = await readTogether(() => Promise.all([store.findPayment(node, message.paymentId), readAhead(node, message)]));
  if (p?.state !== 'sending') return 'skipped'; // done already, or never funded
  return sending[p.method].send(node, p, attempt, ahead[p.method]);
}

const isPaymentMessage = (body: unknown): body is PaymentMessage =>
  typeof (body as PaymentMessage)?.paymentId === 'string' &&
  (['intentId', 'walletAddress'] as const).every((k) => ['string', 'undefined'].includes(typeof (body as PaymentMessage)[k]));

// One message of the payments queue (see lib/platform/queue.ts for retries). Its id names the attempt
// that sends a remote payment (lib/payments/methods/ilp.ts).
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
  await sending[p.method].giveUp(node, p, record.messageId);
}
