import { node } from '../../lib/config';
import { openPaymentsApi } from '../../lib/http/open-payments';
import { completeIncomingPayment, createIncomingPayment, getIncomingPayment, listIncomingPayments } from '../../lib/resource-server/incoming-payments';

// Open Payments incoming payments, on the resource server (lib/resource-server/incoming-payments.ts).
export const handler = openPaymentsApi(
  () => node.urls.resourceServer,
  [
    { method: 'POST', path: '/incoming-payments', handler: (req) => createIncomingPayment(node, req) },
    { method: 'GET', path: '/incoming-payments', handler: (req) => listIncomingPayments(node, req) },
    { method: 'GET', path: '/incoming-payments/{id}', handler: (req) => getIncomingPayment(node, req) },
    { method: 'POST', path: '/incoming-payments/{id}/complete', handler: (req) => completeIncomingPayment(node, req) },
  ],
);
