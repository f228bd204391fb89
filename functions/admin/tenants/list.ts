import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listTenants } from '../../../lib/tenants';

export const handler = adminRoute(routes.listTenants, ({ query, node }) => listTenants(node, query.limit, query.cursor));
