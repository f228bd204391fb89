import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { withdrawIntent } from '../../../lib/payment-intents';

export const handler = adminRoute(routes.withdrawPaymentIntent, ({ params, node }) => withdrawIntent(node, params.id));
