// Made from its route's declaration (cancelPayment, lib/api/routes/payments.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { cancelPayment } from '../../../lib/payments';

export const handler = adminRoute(routes.cancelPayment, ({ params, node }) => cancelPayment(node, params.id));
