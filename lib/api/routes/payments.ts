// The Admin API's routes of the tag Payments, each declared once (./route.ts says what a declaration holds).
import { ledgerErrors } from '../../ledger/errors';
import { paymentErrors } from '../../payments/errors';
import { createPaymentBody, listPaymentsQuery, payment } from '../../payments/schemas';
import { fundingTransferId } from '../../payments/states';
import { quoteErrors } from '../../quotes/errors';
import { amount } from '../../shared/amounts';
import { commonErrors } from '../../shared/errors';
import { walletAddressErrors } from '../../wallet-addresses/errors';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, idParams, page } from './route';

export const paymentPage = page(payment);
export const paymentWithdrawal = payment.extend({ withdrawnAmount: amount });

export const paymentsRoutes = declareRoutes({
  createPayment: {
    tag: 'Payments',
    method: 'post',
    path: '/payments',
    summary: 'Create a payment from a quote',
    description: 'The quote must be unexpired and unused. Emits `payment.created`.',
    body: createPaymentBody,
    status: 201,
    response: payment,
    problems: [quoteErrors.used, quoteErrors.unknown, quoteErrors.walletMismatch, quoteErrors.expired, walletAddressErrors.inactive],
    transactional: true,
    creates: 'PAYMENT',
    named: true,
    functionName: 'paymentsCreate',
    handler: 'payments/create',
    role: 'PaymentsCreateRole',
    operation: { domain: 'payments', name: 'createPayment' },
  },
  listPayments: {
    tag: 'Payments',
    method: 'get',
    path: '/payments',
    summary: 'List payments, newest first',
    description: "All, or a wallet address's (`walletAddress`, its URL), in any state or one (`state`).",
    query: listPaymentsQuery,
    status: 200,
    response: paymentPage,
    functionName: 'paymentsList',
    handler: 'payments/list',
    role: 'AdminRecordsListRole',
    operation: { domain: 'payments', name: 'listPayments' },
  },
  getPayment: {
    tag: 'Payments',
    method: 'get',
    path: '/payments/{id}',
    summary: 'Get a payment',
    params: idParams,
    status: 200,
    response: payment,
    problems: [paymentErrors.notFound],
    functionName: 'paymentsGet',
    handler: 'payments/get',
    role: 'AdminReadRole',
    operation: { domain: 'payments', name: 'getPayment' },
  },
  fundPayment: {
    tag: 'Payments',
    method: 'post',
    path: '/payments/{id}/fund',
    summary: 'Fund (approve) a payment',
    description: 'With exactly its debit amount; it is then sent.',
    params: idParams,
    status: 200,
    response: payment,
    problems: [paymentErrors.notFound, commonErrors.invalidState, quoteErrors.expired, walletAddressErrors.inactive, ledgerErrors.balanceTooLarge],
    transactional: true,
    // Its transfer, named by the payment, keeps the id the request drew (lib/payments fundPayment).
    creates: 'XFER',
    named: fundingTransferId,
    rowAction: true,
    functionName: 'paymentsFund',
    handler: 'payments/fund',
    role: 'PaymentsFundRole',
    operation: { domain: 'payments', name: 'fundPayment' },
  },
  cancelPayment: {
    tag: 'Payments',
    method: 'post',
    path: '/payments/{id}/cancel',
    summary: 'Cancel a payment that is not funded',
    params: idParams,
    status: 200,
    response: payment,
    problems: [paymentErrors.notFound, commonErrors.invalidState],
    transactional: true,
    rowAction: true,
    functionName: 'paymentsCancel',
    handler: 'payments/cancel',
    role: 'AdminChangeRole',
    operation: { domain: 'payments', name: 'cancelPayment' },
  },
  withdrawPayment: {
    tag: 'Payments',
    method: 'post',
    path: '/payments/{id}/withdraw',
    summary: "Settle what is left in a failed payment's account back to the FSP",
    params: idParams,
    status: 200,
    response: paymentWithdrawal,
    problems: [paymentErrors.notFound, commonErrors.invalidState, ledgerErrors.concurrentWithdrawal, ledgerErrors.balanceTooLarge],
    transactional: true,
    rowAction: true,
    functionName: 'paymentsWithdraw',
    handler: 'payments/withdraw',
    role: 'AdminLiquidityRole',
    operation: { domain: 'payments', name: 'withdrawPayment' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const paymentsRoles = {
  // the payment, its quote taken; BatchGetItem: the quote and its wallet address's standing in one read
  PaymentsCreateRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
  // the funding's ledger transfer, on condition that the payment's wallet address is active
  PaymentsFundRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;
