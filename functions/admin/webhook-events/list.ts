import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listWebhookEvents } from '../../../lib/webhooks';

export const handler = adminRoute(routes.listWebhookEvents, ({ query, node }) => listWebhookEvents(node, query));
