// Made from its route's declaration (search, lib/api/routes/search.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { search } from '../../../lib/search';

export const handler = adminRoute(routes.search, ({ query, node }) => search(node, query));
