import { adminRoute } from '../../../lib/http/admin';
import { getPayment } from '../../../lib/payments';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.getPayment, ({ params, node }) => getPayment(node, params.id));
