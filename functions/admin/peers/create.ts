import { adminRoute } from '../../../lib/http/admin';
import { createPeer } from '../../../lib/peers';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.createPeer, ({ body, node }) => createPeer(node, body));
