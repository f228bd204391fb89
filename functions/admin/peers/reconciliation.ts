import { adminRoute } from '../../../lib/http/admin';
import { peerReconciliation } from '../../../lib/payments';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.getPeerReconciliation, ({ params, query, node }) => peerReconciliation(node, params.id, query));
