import { adminRoute } from '../../../lib/http/admin';
import { withdrawPayment } from '../../../lib/payments';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.withdrawPayment, ({ params, node }) => withdrawPayment(node, params.id));
