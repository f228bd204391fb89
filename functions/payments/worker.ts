import type { SQSEvent } from 'aws-lambda';
import { config } from '../../lib/config';
import { logger } from '../../lib/log';
import { deliverPayment } from '../../lib/payments/deliver';
import { processBatch } from '../../lib/queue';

// SQS-triggered: delivers funded payments. Partial batch failures are reported per message.
export const handler = (event: SQSEvent) =>
  processBatch(config.PAYMENTS_QUEUE_URL, event.Records, async (body) => {
    const paymentId = (body as { paymentId?: unknown }).paymentId;
    if (typeof paymentId !== 'string') return logger.error('Dropping a payments message without paymentId', { body });
    const outcome = await deliverPayment(paymentId);
    logger.info('Payment delivery', { paymentId, outcome });
  });
