import { moveLiquidity } from '../../../lib/assets';
import { liquidityBody } from '../../../lib/assets/schemas';
import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';

export const handler = adminRoute({ params: idParams, body: liquidityBody, transactional: true }, async ({ params, body, event, node }) =>
  ok(await moveLiquidity(node, params.id, body.amount, 'deposit', event.headers['idempotency-key'])),
);
