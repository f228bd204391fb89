// Made from its route's declaration (getGrant, lib/api/routes/grants.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getGrant } from '../../../lib/auth-server';

export const handler = adminRoute(routes.getGrant, ({ params, node }) => getGrant(node, params.id));
