// Made from its route's declaration (createPayment, lib/api/routes/payments.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { createPayment } from '../../../lib/payments';

export const handler = adminRoute(routes.createPayment, ({ body, node }) => createPayment(node, body));
