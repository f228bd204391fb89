import { node } from '../../lib/config';
import { openPaymentsApi } from '../../lib/http/open-payments';
import { createOutgoingPayment, getGrantSpentAmounts, getOutgoingPayment, listOutgoingPayments } from '../../lib/resource-server/outgoing-payments';

// Open Payments outgoing payments, on the resource server (lib/resource-server/outgoing-payments.ts).
export const handler = openPaymentsApi(
  () => node.urls.resourceServer,
  [
    { method: 'POST', path: '/outgoing-payments', handler: (req) => createOutgoingPayment(node, req) },
    { method: 'GET', path: '/outgoing-payments', handler: (req) => listOutgoingPayments(node, req) },
    { method: 'GET', path: '/outgoing-payments/{id}', handler: (req) => getOutgoingPayment(node, req) },
    { method: 'GET', path: '/outgoing-payment-grant', handler: (req) => getGrantSpentAmounts(node, req) },
  ],
);
