import { moveLiquidity } from '../../../lib/assets';
import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.depositAssetLiquidity, ({ params, body, event, node }) =>
  moveLiquidity(node, params.id, body.amount, 'deposit', event.headers['idempotency-key']),
);
