import { node } from '../../lib/config';
import { WEBHOOK_MAX_RECEIVES } from '../../lib/limits';
import { queueConsumer } from '../../lib/queue';
import { giveUpWebhook, handleWebhookMessage } from '../../lib/webhooks/deliver';

// SQS-triggered: delivers domain events to the FSP's WEBHOOK_URL (see lib/webhooks/deliver.ts).
export const handler = queueConsumer(node.queues.webhooks, (body) => handleWebhookMessage(node, body), {
  maxReceives: WEBHOOK_MAX_RECEIVES,
  giveUp: (body, error) => giveUpWebhook(node, body, error),
});
