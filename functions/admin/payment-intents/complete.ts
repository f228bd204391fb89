import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { completeIntent, intentView } from '../../../lib/payment-intents';

export const handler = adminRoute({ params: idParams, transactional: true }, async ({ params, node }) =>
  ok(intentView(node, await completeIntent(node, params.id))),
);
