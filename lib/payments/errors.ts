import { errorCatalog } from '../shared/errors';

export const paymentErrors = errorCatalog({
  notFound: { code: 'payment_not_found', status: 404, title: 'No payment with this id', detail: (id: string) => `No payment with id ${id}` },
  insufficientGrant: {
    code: 'insufficient_grant',
    status: 403,
    title: "The payment does not fit the grant's limits",
    detail: (detail: string) => detail,
  },
  // Open Payments: a client pays only with the quotes it created.
  quoteNotYours: {
    code: 'forbidden',
    status: 403,
    title: 'The quote was created by another client',
    detail: (id: string) => `Quote ${id} was not created by this client`,
  },
  grantBusy: {
    code: 'grant_busy',
    status: 503,
    title: 'Other payments under this grant kept changing what it has spent; retry',
    detail: () => 'Other payments under this grant kept changing what it has spent; retry shortly',
  },
});
