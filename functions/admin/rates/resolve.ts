// Made from its route's declaration (getRate, lib/api/routes/rates.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { lookUpRate } from '../../../lib/rates';

export const handler = adminRoute(routes.getRate, ({ query, node }) => lookUpRate(node, query));
