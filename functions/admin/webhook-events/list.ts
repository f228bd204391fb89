import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { listWebhookEvents } from '../../../lib/webhooks';

export const handler = adminRoute(routes.listWebhookEvents, ({ query, node }) => listWebhookEvents(node, query));
