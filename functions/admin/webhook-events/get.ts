import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { getWebhookEvent } from '../../../lib/webhooks';

export const handler = adminRoute(routes.getWebhookEvent, ({ params, node }) => getWebhookEvent(node, params.id));
