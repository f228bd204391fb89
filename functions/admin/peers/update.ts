import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { updatePeer } from '../../../lib/peers';

export const handler = adminRoute(routes.updatePeer, ({ params, body, node }) => updatePeer(node, params.id, body));
