// Made from its route's declaration (getWebhookEvent, lib/api/routes/webhook-events.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getWebhookEvent } from '../../../lib/webhooks';

export const handler = adminRoute(routes.getWebhookEvent, ({ params, node }) => getWebhookEvent(node, params.id));
