// Made from its route's declaration (redeliverWebhookEvent, lib/api/routes/webhook-events.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { redeliverWebhookEvent } from '../../../lib/webhooks';

export const handler = adminRoute(routes.redeliverWebhookEvent, ({ params, node }) => redeliverWebhookEvent(node, params.id));
