// Made from its route's declaration (updateTenant, lib/api/routes/tenants.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { updateTenant } from '../../../lib/tenants';

export const handler = adminRoute(routes.updateTenant, ({ params, body, node }) => updateTenant(node, params.id, body));
