import { openPaymentsApi } from '../../lib/http/open-payments';
import { completeIncomingPayment, createIncomingPayment, getIncomingPayment, listIncomingPayments } from '../../lib/open-payments/incoming-payments';
import { resourceServerUrl } from '../../lib/resources';

// Open Payments incoming payments, on the resource server (lib/open-payments/incoming-payments.ts).
export const handler = openPaymentsApi(resourceServerUrl, [
  { method: 'POST', path: '/incoming-payments', handler: createIncomingPayment },
  { method: 'GET', path: '/incoming-payments', handler: listIncomingPayments },
  { method: 'GET', path: '/incoming-payments/{id}', handler: getIncomingPayment },
  { method: 'POST', path: '/incoming-payments/{id}/complete', handler: completeIncomingPayment },
]);
