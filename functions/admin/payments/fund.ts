// Made from its route's declaration (fundPayment, lib/api/routes/payments.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { fundPayment } from '../../../lib/payments';

export const handler = adminRoute(routes.fundPayment, ({ params, node }) => fundPayment(node, params.id));
