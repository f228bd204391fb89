import { node } from '../../lib/config';
import { PAYMENTS_MAX_RECEIVES } from '../../lib/limits';
import { giveUpPayment, handlePaymentMessage } from '../../lib/payments/deliver';
import { queueConsumer } from '../../lib/queue';

// SQS-triggered: delivers funded payments. Partial batch failures are reported per message.
export const handler = queueConsumer(node.queues.payments, (body, record) => handlePaymentMessage(node, body, record), {
  maxReceives: PAYMENTS_MAX_RECEIVES,
  giveUp: (body, error, record) => giveUpPayment(node, body, error, record),
});
