import type { SQSEvent } from 'aws-lambda';
import { config } from '../../lib/config';
import { WEBHOOK_MAX_RECEIVES } from '../../lib/limits';
import { processBatch } from '../../lib/queue';
import { observed } from '../../lib/tracing';
import { giveUpWebhook, handleWebhookMessage } from '../../lib/webhooks/deliver';

// SQS-triggered: delivers domain events to the FSP's WEBHOOK_URL (see lib/webhooks/deliver.ts).
export const handler = observed((event: SQSEvent) =>
  processBatch(config.WEBHOOK_QUEUE_URL, event.Records, handleWebhookMessage, { maxReceives: WEBHOOK_MAX_RECEIVES, giveUp: giveUpWebhook }),
);
