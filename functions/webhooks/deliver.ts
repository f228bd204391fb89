import type { SQSEvent } from 'aws-lambda';
import { config } from '../../lib/config';
import { processBatch } from '../../lib/queue';
import { WEBHOOK_MAX_RECEIVES } from '../../lib/limits';
import { giveUpWebhook, handleWebhookMessage } from '../../lib/webhooks';

// SQS-triggered: delivers domain events to the FSP's WEBHOOK_URL (see lib/webhooks).
export const handler = (event: SQSEvent) =>
  processBatch(config.WEBHOOK_QUEUE_URL, event.Records, handleWebhookMessage, { maxReceives: WEBHOOK_MAX_RECEIVES, giveUp: giveUpWebhook });
