import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { getTenant } from '../../../lib/tenants';

export const handler = adminRoute(routes.getTenant, ({ params, node }) => getTenant(node, params.id));
