// Made from its route's declaration (createReceiver, lib/api/routes/receivers.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { createReceiver } from '../../../lib/receivers';

export const handler = adminRoute(routes.createReceiver, ({ body, node }) => createReceiver(node, body));
