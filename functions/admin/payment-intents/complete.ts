import { adminRoute } from '../../../lib/http/admin';
import { completeIntent, intentView } from '../../../lib/payment-intents';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.completePaymentIntent, async ({ params, node }) => intentView(node, await completeIntent(node, params.id)));
