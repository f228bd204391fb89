import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { moveLiquidity } from '../../../lib/assets';
import { holdAssetLiquidity } from '../../../lib/liquidity-withdrawals';

export const handler = adminRoute(routes.withdrawAssetLiquidity, ({ params, body, event, node }) =>
  body.twoPhase
    ? holdAssetLiquidity(node, params.id, body.amount, event.headers['idempotency-key'])
    : moveLiquidity(node, params.id, body.amount, 'withdrawal', event.headers['idempotency-key']),
);
