// Made from its route's declaration (listPayments, lib/api/routes/payments.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listPayments } from '../../../lib/payments';

export const handler = adminRoute(routes.listPayments, ({ query, node }) => listPayments(node, query));
