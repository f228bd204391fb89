import type { SQSEvent } from 'aws-lambda';
import { config } from '../../lib/config';
import { processBatch } from '../../lib/queue';
import { handleWebhookMessage } from '../../lib/webhooks';

// SQS-triggered: delivers domain events to the FSP's WEBHOOK_URL (see lib/webhooks).
export const handler = (event: SQSEvent) => processBatch(config.WEBHOOK_QUEUE_URL, event.Records, handleWebhookMessage);
