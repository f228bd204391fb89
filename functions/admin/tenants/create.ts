// Made from its route's declaration (createTenant, lib/api/routes/tenants.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { createTenant } from '../../../lib/tenants';

export const handler = adminRoute(routes.createTenant, ({ body, node }) => createTenant(node, body));
