import { adminRoute } from '../../../lib/http/admin';
import { updatePeer } from '../../../lib/peers';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.updatePeer, ({ params, body, node }) => updatePeer(node, params.id, body));
