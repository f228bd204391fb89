import { adminRoute } from '../../../lib/http/admin';
import { cancelIntent, intentView } from '../../../lib/payment-intents';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.cancelPaymentIntent, async ({ params, body, node }) =>
  intentView(node, await cancelIntent(node, params.id, body.reason)),
);
