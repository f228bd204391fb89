import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { movePeerLiquidity } from '../../../lib/peers';

export const handler = adminRoute(routes.depositPeerLiquidity, ({ params, body, event, node }) =>
  movePeerLiquidity(node, params.id, body.amount, 'deposit', event.headers['idempotency-key']),
);
