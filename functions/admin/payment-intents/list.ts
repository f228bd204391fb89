// Made from its route's declaration (listPaymentIntents, lib/api/routes/payment-intents.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listIntents } from '../../../lib/payment-intents';

export const handler = adminRoute(routes.listPaymentIntents, ({ query, node }) => listIntents(node, query));
