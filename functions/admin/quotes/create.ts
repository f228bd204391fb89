import { adminRoute, created } from '../../../lib/http/admin';
import { quoteView } from '../../../lib/quotes';
import { createQuote } from '../../../lib/quotes/create';
import { createQuoteBody } from '../../../lib/quotes/schemas';

export const handler = adminRoute({ body: createQuoteBody, transactional: true }, async ({ body, node }) => created(quoteView(await createQuote(node, body))));
