import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { approveIntent, intentView } from '../../../lib/payment-intents';

export const handler = adminRoute(routes.approvePaymentIntent, async ({ params, node }) => intentView(node, await approveIntent(node, params.id)));
