import { adminRoute } from '../../../lib/http/admin';
import { movePeerLiquidity } from '../../../lib/peers';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.depositPeerLiquidity, ({ params, body, event, node }) =>
  movePeerLiquidity(node, params.id, body.amount, 'deposit', event.headers['idempotency-key']),
);
