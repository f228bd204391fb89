import { adminRoute } from '../../../lib/http/admin';
import { getQuote } from '../../../lib/quotes';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.getQuote, ({ params, node }) => getQuote(node, params.id));
