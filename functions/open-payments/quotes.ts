import { node } from '../../lib/config';
import { openPaymentsApi } from '../../lib/http/open-payments';
import { createOpQuote, getOpQuote } from '../../lib/resource-server/quotes';

// Open Payments quotes, on the resource server (lib/resource-server/quotes.ts).
export const handler = openPaymentsApi(
  () => node.urls.resourceServer,
  [
    { method: 'POST', path: '/quotes', handler: (req) => createOpQuote(node, req) },
    { method: 'GET', path: '/quotes/{id}', handler: (req) => getOpQuote(node, req) },
  ],
);
