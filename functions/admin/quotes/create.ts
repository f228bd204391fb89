import { adminRoute, created } from '../../../lib/http/admin';
import { createQuote } from '../../../lib/payments/methods/quote';
import { quoteView } from '../../../lib/quotes';
import { createQuoteBody } from '../../../lib/quotes/schemas';

export const handler = adminRoute({ body: createQuoteBody, transactional: true }, async ({ body, node }) => created(quoteView(await createQuote(node, body))));
