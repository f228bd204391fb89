import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { createQuote } from '../../../lib/payments/methods/quote';
import { quoteView } from '../../../lib/quotes';

export const handler = adminRoute(routes.createQuote, async ({ body, node }) => quoteView(await createQuote(node, body)));
