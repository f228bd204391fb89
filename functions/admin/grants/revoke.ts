import { revokeGrantByFsp } from '../../../lib/auth-server';
import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.revokeGrant, ({ params, node }) => revokeGrantByFsp(node, params.id));
