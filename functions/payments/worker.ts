import { deployment, onTenantOf } from '../../lib/api/context';
import { giveUpPayment, handlePaymentMessage } from '../../lib/payments/deliver';
import { queueConsumer } from '../../lib/platform/queue';
import { PAYMENTS_MAX_RECEIVES } from '../../lib/shared/limits';

// SQS-triggered: delivers funded payments, each on its tenant's node. Partial batch failures are
// reported per message.
export const handler = queueConsumer(deployment.queues.payments, (body, record) => onTenantOf(body, (node) => handlePaymentMessage(node, body, record)), {
  maxReceives: PAYMENTS_MAX_RECEIVES,
  giveUp: (body, error, record) => onTenantOf(body, (node) => giveUpPayment(node, body, error, record)),
});
