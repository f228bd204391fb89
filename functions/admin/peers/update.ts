// Made from its route's declaration (updatePeer, lib/api/routes/peers.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { updatePeer } from '../../../lib/peers';

export const handler = adminRoute(routes.updatePeer, ({ params, body, node }) => updatePeer(node, params.id, body));
