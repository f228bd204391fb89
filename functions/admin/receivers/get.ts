// Made from its route's declaration (getReceiver, lib/api/routes/receivers.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getReceiver } from '../../../lib/receivers';

export const handler = adminRoute(routes.getReceiver, ({ query, node }) => getReceiver(node, query));
