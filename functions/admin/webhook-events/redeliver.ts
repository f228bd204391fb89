import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { redeliverWebhookEvent } from '../../../lib/webhooks';

export const handler = adminRoute(routes.redeliverWebhookEvent, ({ params, node }) => redeliverWebhookEvent(node, params.id));
