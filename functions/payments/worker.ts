import type { SQSEvent } from 'aws-lambda';
import { config } from '../../lib/config';
import { PAYMENTS_MAX_RECEIVES } from '../../lib/limits';
import { giveUpPayment, handlePaymentMessage } from '../../lib/payments/deliver';
import { processBatch } from '../../lib/queue';
import { observed } from '../../lib/tracing';

// SQS-triggered: delivers funded payments. Partial batch failures are reported per message.
export const handler = observed((event: SQSEvent) =>
  processBatch(config.PAYMENTS_QUEUE_URL, event.Records, handlePaymentMessage, { maxReceives: PAYMENTS_MAX_RECEIVES, giveUp: giveUpPayment }),
);
