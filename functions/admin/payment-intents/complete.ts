import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { completeIntent } from '../../../lib/payment-intents';

export const handler = adminRoute({ params: idParams, transactional: true }, async ({ params }) => ok(await completeIntent(params.id)));
