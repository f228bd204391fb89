import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { cancelIntent, intentView } from '../../../lib/payment-intents';

export const handler = adminRoute(routes.cancelPaymentIntent, async ({ params, body, node }) =>
  intentView(node, await cancelIntent(node, params.id, body.reason)),
);
