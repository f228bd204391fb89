import { config } from '../../lib/config';
import { PAYMENTS_MAX_RECEIVES } from '../../lib/limits';
import { giveUpPayment, handlePaymentMessage } from '../../lib/payments/deliver';
import { queueConsumer } from '../../lib/queue';

// SQS-triggered: delivers funded payments. Partial batch failures are reported per message.
export const handler = queueConsumer(() => config.PAYMENTS_QUEUE_URL, handlePaymentMessage, { maxReceives: PAYMENTS_MAX_RECEIVES, giveUp: giveUpPayment });
