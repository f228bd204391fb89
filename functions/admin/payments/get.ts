import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getPayment } from '../../../lib/payments';

export const handler = adminRoute(routes.getPayment, ({ params, node }) => getPayment(node, params.id));
