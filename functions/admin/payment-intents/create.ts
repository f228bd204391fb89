import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { createIntent, intentView } from '../../../lib/payment-intents';

export const handler = adminRoute(routes.createPaymentIntent, async ({ body, node }) => intentView(node, await createIntent(node, body)));
