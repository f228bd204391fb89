import { deployment, onTenantOf } from '../../lib/context';
import { WEBHOOK_MAX_RECEIVES } from '../../lib/limits';
import { queueConsumer } from '../../lib/queue';
import { giveUpWebhook, handleWebhookMessage } from '../../lib/webhooks/deliver';

// SQS-triggered: delivers domain events to their tenant's webhook URL (see lib/webhooks/deliver.ts).
export const handler = queueConsumer(deployment.queues.webhooks, (body) => onTenantOf(body, (node) => handleWebhookMessage(node, body)), {
  maxReceives: WEBHOOK_MAX_RECEIVES,
  giveUp: (body, error) => onTenantOf(body, (node) => giveUpWebhook(node, body, error)),
});
