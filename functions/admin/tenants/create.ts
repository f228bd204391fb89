import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { createTenant } from '../../../lib/tenants';

export const handler = adminRoute(routes.createTenant, ({ body, node }) => createTenant(node, body));
