import { adminRoute, created } from '../../../lib/http/admin';
import { createIntent } from '../../../lib/payment-intents';
import { createIntentBody } from '../../../lib/payment-intents/schemas';

export const handler = adminRoute({ body: createIntentBody, transactional: true }, async ({ body }) => created(await createIntent(body)));
