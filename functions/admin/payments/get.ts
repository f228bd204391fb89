// Made from its route's declaration (getPayment, lib/api/routes/payments.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getPayment } from '../../../lib/payments';

export const handler = adminRoute(routes.getPayment, ({ params, node }) => getPayment(node, params.id));
