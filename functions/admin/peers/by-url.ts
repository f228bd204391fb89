// Made from its route's declaration (createOrUpdatePeerByUrl, lib/api/routes/peers.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { peerByUrl } from '../../../lib/peers';

export const handler = adminRoute(routes.createOrUpdatePeerByUrl, ({ body, node }) => peerByUrl(node, body));
