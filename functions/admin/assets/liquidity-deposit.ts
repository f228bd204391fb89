import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { moveLiquidity } from '../../../lib/assets';

export const handler = adminRoute(routes.depositAssetLiquidity, ({ params, body, event, node }) =>
  moveLiquidity(node, params.id, body.amount, 'deposit', event.headers['idempotency-key']),
);
