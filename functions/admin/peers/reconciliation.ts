// Made from its route's declaration (getPeerReconciliation, lib/api/routes/peers.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { peerReconciliation } from '../../../lib/payments';

export const handler = adminRoute(routes.getPeerReconciliation, ({ params, query, node }) => peerReconciliation(node, params.id, query));
