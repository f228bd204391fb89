import { adminRoute } from '../../../lib/http/admin';
import { createQuote } from '../../../lib/payments/methods/quote';
import { quoteView } from '../../../lib/quotes';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.createQuote, async ({ body, node }) => quoteView(await createQuote(node, body)));
