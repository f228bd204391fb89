import { moveLiquidity } from '../../../lib/assets';
import { adminRoute } from '../../../lib/http/admin';
import { holdAssetLiquidity } from '../../../lib/liquidity-withdrawals';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.withdrawAssetLiquidity, ({ params, body, event, node }) =>
  body.twoPhase
    ? holdAssetLiquidity(node, params.id, body.amount, event.headers['idempotency-key'])
    : moveLiquidity(node, params.id, body.amount, 'withdrawal', event.headers['idempotency-key']),
);
