import { adminRoute, ok } from '../../../lib/http/admin';
import { listIntents } from '../../../lib/payment-intents';
import { listIntentsQuery } from '../../../lib/payment-intents/schemas';

export const handler = adminRoute({ query: listIntentsQuery }, async ({ query, node }) => ok(await listIntents(node, query)));
