import { adminRoute } from '../../../lib/http/admin';
import { listPayments } from '../../../lib/payments';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.listPayments, ({ query, node }) => listPayments(node, query));
