import { tenantNode } from '../../lib/api/context';
import { openPaymentsApi } from '../../lib/api/http/open-payments';
import { createOpQuote, getOpQuote } from '../../lib/api/resource-server/quotes';

// Open Payments quotes, on the resource server (lib/api/resource-server/quotes.ts).
export const handler = openPaymentsApi({ server: 'resourceServer', tenants: tenantNode }, [
  { method: 'POST', path: '/quotes', handler: (req, node) => createOpQuote(node, req) },
  { method: 'GET', path: '/quotes/{id}', handler: (req, node) => getOpQuote(node, req) },
]);
