import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { withdrawPayment } from '../../../lib/payments';

export const handler = adminRoute(routes.withdrawPayment, ({ params, node }) => withdrawPayment(node, params.id));
