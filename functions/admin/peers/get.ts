// Made from its route's declaration (getPeer, lib/api/routes/peers.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getPeer } from '../../../lib/peers';

export const handler = adminRoute(routes.getPeer, ({ params, node }) => getPeer(node, params.id));
