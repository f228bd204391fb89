import { adminRoute, ok } from '../../../lib/http/admin';
import { getWebhookEvent } from '../../../lib/webhooks';
import { eventIdParams } from '../../../lib/webhooks/schemas';

export const handler = adminRoute({ params: eventIdParams }, async ({ params, node }) => ok(await getWebhookEvent(node, params.id)));
