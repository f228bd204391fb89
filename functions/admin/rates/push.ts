// Made from its route's declaration (pushRate, lib/api/routes/rates.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { pushRate } from '../../../lib/rates';

export const handler = adminRoute(routes.pushRate, ({ body, node }) => pushRate(node, body));
