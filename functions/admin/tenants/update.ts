import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { updateTenant } from '../../../lib/tenants';

export const handler = adminRoute(routes.updateTenant, ({ params, body, node }) => updateTenant(node, params.id, body));
