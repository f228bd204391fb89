import { adminRoute, ok } from '../../../lib/http/admin';
import { listWebhookEvents } from '../../../lib/webhooks';
import { listQuery } from '../../../lib/webhooks/schemas';

export const handler = adminRoute({ query: listQuery }, async ({ query, node }) => ok(await listWebhookEvents(node, query)));
