import { adminRoute } from '../../../lib/http/admin';
import { fundPayment } from '../../../lib/payments';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.fundPayment, ({ params, node }) => fundPayment(node, params.id));
