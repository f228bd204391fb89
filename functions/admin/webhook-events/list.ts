// Made from its route's declaration (listWebhookEvents, lib/api/routes/webhook-events.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listWebhookEvents } from '../../../lib/webhooks';

export const handler = adminRoute(routes.listWebhookEvents, ({ query, node }) => listWebhookEvents(node, query));
