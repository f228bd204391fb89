import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { listTenants } from '../../../lib/tenants';

export const handler = adminRoute(routes.listTenants, ({ query, node }) => listTenants(node, query.limit, query.cursor));
