// Made from its route's declaration (withdrawPaymentIntent, lib/api/routes/payment-intents.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { withdrawIntent } from '../../../lib/payment-intents';

export const handler = adminRoute(routes.withdrawPaymentIntent, ({ params, node }) => withdrawIntent(node, params.id));
