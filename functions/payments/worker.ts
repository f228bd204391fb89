import type { SQSEvent } from 'aws-lambda';
import { config } from '../../lib/config';
import { logger } from '../../lib/log';
import { PAYMENTS_MAX_RECEIVES } from '../../lib/limits';
import { deliverPayment, giveUpPayment } from '../../lib/payments/deliver';
import { processBatch } from '../../lib/queue';

// SQS-triggered: delivers funded payments. Partial batch failures are reported per message.
const paymentIdOf = (body: unknown) => (body as { paymentId?: unknown }).paymentId;

export const handler = (event: SQSEvent) =>
  processBatch(
    config.PAYMENTS_QUEUE_URL,
    event.Records,
    async (body) => {
      const paymentId = paymentIdOf(body);
      if (typeof paymentId !== 'string') return logger.error('Dropping a payments message without paymentId', { body });
      const outcome = await deliverPayment(paymentId);
      logger.info('Payment delivery', { paymentId, outcome });
    },
    { maxReceives: PAYMENTS_MAX_RECEIVES, giveUp: (body) => giveUpPayment(String(paymentIdOf(body))) },
  );
