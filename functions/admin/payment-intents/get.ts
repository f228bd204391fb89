import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { getIntent } from '../../../lib/payment-intents';

export const handler = adminRoute({ params: idParams }, async ({ params, node }) => ok(await getIntent(node, params.id)));
