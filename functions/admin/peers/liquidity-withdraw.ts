import { liquidityBody } from '../../../lib/assets/schemas';
import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { movePeerLiquidity } from '../../../lib/peers';

export const handler = adminRoute({ params: idParams, body: liquidityBody, transactional: true }, async ({ params, body, event, node }) =>
  ok(await movePeerLiquidity(node, params.id, body.amount, 'withdrawal', event.headers['idempotency-key'])),
);
