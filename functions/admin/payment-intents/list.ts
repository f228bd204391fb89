import { adminRoute } from '../../../lib/http/admin';
import { listIntents } from '../../../lib/payment-intents';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.listPaymentIntents, ({ query, node }) => listIntents(node, query));
