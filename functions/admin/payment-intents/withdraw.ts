import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { withdrawIntent } from '../../../lib/payment-intents';

export const handler = adminRoute({ params: idParams, transactional: true }, async ({ params, node }) => ok(await withdrawIntent(node, params.id)));
