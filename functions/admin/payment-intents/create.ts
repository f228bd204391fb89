import { adminRoute } from '../../../lib/http/admin';
import { createIntent, intentView } from '../../../lib/payment-intents';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.createPaymentIntent, async ({ body, node }) => intentView(node, await createIntent(node, body)));
