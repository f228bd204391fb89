import { listGrants } from '../../../lib/auth-server';
import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.listGrants, ({ query, node }) => listGrants(node, query));
