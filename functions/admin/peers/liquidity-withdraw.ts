import { adminRoute } from '../../../lib/http/admin';
import { movePeerLiquidity } from '../../../lib/peers';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.withdrawPeerLiquidity, ({ params, body, event, node }) =>
  movePeerLiquidity(node, params.id, body.amount, 'withdrawal', event.headers['idempotency-key']),
);
