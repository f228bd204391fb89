// Made from its route's declaration (revokeGrant, lib/api/routes/grants.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { revokeGrantByFsp } from '../../../lib/auth-server';

export const handler = adminRoute(routes.revokeGrant, ({ params, node }) => revokeGrantByFsp(node, params.id));
