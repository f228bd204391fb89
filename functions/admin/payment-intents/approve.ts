import { adminRoute } from '../../../lib/http/admin';
import { approveIntent, intentView } from '../../../lib/payment-intents';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.approvePaymentIntent, async ({ params, node }) => intentView(node, await approveIntent(node, params.id)));
