import { adminRoute, created } from '../../../lib/http/admin';
import { createIntent, intentView } from '../../../lib/payment-intents';
import { createIntentBody } from '../../../lib/payment-intents/schemas';

export const handler = adminRoute({ body: createIntentBody, transactional: true }, async ({ body, node }) =>
  created(intentView(node, await createIntent(node, body))),
);
