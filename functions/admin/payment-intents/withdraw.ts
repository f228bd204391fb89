import { adminRoute } from '../../../lib/http/admin';
import { withdrawIntent } from '../../../lib/payment-intents';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.withdrawPaymentIntent, ({ params, node }) => withdrawIntent(node, params.id));
