// Made from its route's declaration (completeReceiver, lib/api/routes/receivers.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { completeReceiver } from '../../../lib/receivers';

export const handler = adminRoute(routes.completeReceiver, ({ body, node }) => completeReceiver(node, body));
