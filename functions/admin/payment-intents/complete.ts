import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { completeIntent, intentView } from '../../../lib/payment-intents';

export const handler = adminRoute(routes.completePaymentIntent, async ({ params, node }) => intentView(node, await completeIntent(node, params.id)));
