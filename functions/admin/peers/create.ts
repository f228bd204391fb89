// Made from its route's declaration (createPeer, lib/api/routes/peers.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { createPeer } from '../../../lib/peers';

export const handler = adminRoute(routes.createPeer, ({ body, node }) => createPeer(node, body));
