import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { holdPeerLiquidity } from '../../../lib/liquidity-withdrawals';
import { movePeerLiquidity } from '../../../lib/peers';

export const handler = adminRoute(routes.withdrawPeerLiquidity, ({ params, body, event, node }) =>
  body.twoPhase
    ? holdPeerLiquidity(node, params.id, body.amount, event.headers['idempotency-key'])
    : movePeerLiquidity(node, params.id, body.amount, 'withdrawal', event.headers['idempotency-key']),
);
