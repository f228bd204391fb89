// Made from its route's declaration (getTenant, lib/api/routes/tenants.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getTenant } from '../../../lib/tenants';

export const handler = adminRoute(routes.getTenant, ({ params, node }) => getTenant(node, params.id));
