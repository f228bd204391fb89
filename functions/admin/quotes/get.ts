// Made from its route's declaration (getQuote, lib/api/routes/quotes.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getQuote } from '../../../lib/quotes';

export const handler = adminRoute(routes.getQuote, ({ params, node }) => getQuote(node, params.id));
