import { adminRoute } from '../../../lib/http/admin';
import { listPeers } from '../../../lib/peers';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.listPeers, ({ query, node }) => listPeers(node, query.limit, query.cursor));
