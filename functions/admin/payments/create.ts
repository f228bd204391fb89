import { adminRoute } from '../../../lib/http/admin';
import { createPayment } from '../../../lib/payments';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.createPayment, ({ body, node }) => createPayment(node, body));
