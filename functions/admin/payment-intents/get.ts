import { adminRoute } from '../../../lib/http/admin';
import { getIntent } from '../../../lib/payment-intents';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.getPaymentIntent, ({ params, node }) => getIntent(node, params.id));
