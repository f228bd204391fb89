// Made from its route's declaration (listGrants, lib/api/routes/grants.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listGrants } from '../../../lib/auth-server';

export const handler = adminRoute(routes.listGrants, ({ query, node }) => listGrants(node, query));
