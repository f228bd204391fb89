// Made from its route's declaration (withdrawPayment, lib/api/routes/payments.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { withdrawPayment } from '../../../lib/payments';

export const handler = adminRoute(routes.withdrawPayment, ({ params, node }) => withdrawPayment(node, params.id));
