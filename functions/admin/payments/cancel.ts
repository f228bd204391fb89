import { adminRoute } from '../../../lib/http/admin';
import { cancelPayment } from '../../../lib/payments';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.cancelPayment, ({ params, node }) => cancelPayment(node, params.id));
