import { accepted, adminRoute } from '../../../lib/http/admin';
import { redeliverWebhookEvent } from '../../../lib/webhooks';
import { eventIdParams } from '../../../lib/webhooks/schemas';

export const handler = adminRoute({ params: eventIdParams, transactional: true }, async ({ params, node }) =>
  accepted(await redeliverWebhookEvent(node, params.id)),
);
