import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { peerReconciliation } from '../../../lib/payments';
import { reconciliationQuery } from '../../../lib/peers/schemas';

export const handler = adminRoute({ params: idParams, query: reconciliationQuery }, async ({ params, query, node }) =>
  ok(await peerReconciliation(node, params.id, query)),
);
