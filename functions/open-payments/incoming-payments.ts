import { tenantNode } from '../../lib/api/context';
import { openPaymentsApi } from '../../lib/api/http/open-payments';
import { completeIncomingPayment, createIncomingPayment, getIncomingPayment, listIncomingPayments } from '../../lib/api/resource-server/incoming-payments';

// Open Payments incoming payments, on the resource server (lib/api/resource-server/incoming-payments.ts).
export const handler = openPaymentsApi({ server: 'resourceServer', tenants: tenantNode }, [
  { method: 'POST', path: '/incoming-payments', handler: (req, node) => createIncomingPayment(node, req) },
  { method: 'GET', path: '/incoming-payments', handler: (req, node) => listIncomingPayments(node, req) },
  { method: 'GET', path: '/incoming-payments/{id}', handler: (req, node) => getIncomingPayment(node, req) },
  { method: 'POST', path: '/incoming-payments/{id}/complete', handler: (req, node) => completeIncomingPayment(node, req) },
]);
