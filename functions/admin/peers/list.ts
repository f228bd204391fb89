import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listPeers } from '../../../lib/peers';

export const handler = adminRoute(routes.listPeers, ({ query, node }) => listPeers(node, query.limit, query.cursor));
