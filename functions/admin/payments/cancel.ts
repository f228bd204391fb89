import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { cancelPayment } from '../../../lib/payments';

export const handler = adminRoute(routes.cancelPayment, ({ params, node }) => cancelPayment(node, params.id));
