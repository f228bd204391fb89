import { deployment, onTenantOf } from '../../lib/api/context';
import { queueConsumer } from '../../lib/platform/queue';
import { WEBHOOK_MAX_RECEIVES } from '../../lib/shared/limits';
import { giveUpWebhook, handleWebhookMessage } from '../../lib/webhooks/deliver';

// SQS-triggered: delivers domain events to their tenant's webhook URL (see lib/webhooks/deliver.ts).
export const handler = queueConsumer(deployment.queues.webhooks, (body) => onTenantOf(body, (node) => handleWebhookMessage(node, body)), {
  maxReceives: WEBHOOK_MAX_RECEIVES,
  giveUp: (body, error) => onTenantOf(body, (node) => giveUpWebhook(node, body, error)),
});
