import { tenantNode } from '../../lib/api/context';
import { openPaymentsApi } from '../../lib/api/http/open-payments';
import { createOutgoingPayment, getGrantSpentAmounts, getOutgoingPayment, listOutgoingPayments } from '../../lib/api/resource-server/outgoing-payments';

// Open Payments outgoing payments, on the resource server (lib/api/resource-server/outgoing-payments.ts).
export const handler = openPaymentsApi({ server: 'resourceServer', tenants: tenantNode }, [
  { method: 'POST', path: '/outgoing-payments', handler: (req, node) => createOutgoingPayment(node, req) },
  { method: 'GET', path: '/outgoing-payments', handler: (req, node) => listOutgoingPayments(node, req) },
  { method: 'GET', path: '/outgoing-payments/{id}', handler: (req, node) => getOutgoingPayment(node, req) },
  { method: 'GET', path: '/outgoing-payment-grant', handler: (req, node) => getGrantSpentAmounts(node, req) },
]);
