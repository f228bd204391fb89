// Made from its route's declaration (getPaymentIntent, lib/api/routes/payment-intents.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getIntent } from '../../../lib/payment-intents';

export const handler = adminRoute(routes.getPaymentIntent, ({ params, node }) => getIntent(node, params.id));
