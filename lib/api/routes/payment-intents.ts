// The Admin API's routes of the tag Payment intents, each declared once (./route.ts says what a declaration holds).
import { ledgerErrors } from '../../ledger/errors';
import { intentErrors } from '../../payment-intents/errors';
import { cancelIntentBody, createIntentBody, listIntentsQuery, paymentIntent } from '../../payment-intents/schemas';
import { amount } from '../../shared/amounts';
import { commonErrors } from '../../shared/errors';
import { walletAddressErrors } from '../../wallet-addresses/errors';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, idParams, page } from './route';

export const paymentIntentPage = page(paymentIntent);
export const paymentIntentWithdrawal = paymentIntent.extend({ withdrawnAmount: amount });

export const paymentIntentsRoutes = declareRoutes({
  createPaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents',
    summary: 'Create a payment intent',
    description: "An incoming payment on the recipient's wallet address; its `url` is the record over Open Payments.",
    body: createIntentBody,
    status: 201,
    response: paymentIntent,
    problems: [walletAddressErrors.unknown, walletAddressErrors.inactive, intentErrors.assetMismatch],
    transactional: true,
    creates: 'INTENT',
    functionName: 'paymentIntentsCreate',
    handler: 'payment-intents/create',
    role: 'PaymentIntentsCreateRole',
  },
  listPaymentIntents: {
    tag: 'Payment intents',
    method: 'get',
    path: '/payment-intents',
    summary: 'List payment intents, newest first',
    description:
      "All, or a wallet address's (`walletAddress`, its URL), in any state or one (`state`, as the intent reads: an open intent past its " +
      'expiry is `expired`).',
    query: listIntentsQuery,
    status: 200,
    response: paymentIntentPage,
    functionName: 'paymentIntentsList',
    handler: 'payment-intents/list',
    role: 'AdminRecordsListRole',
    operation: { domain: 'payment-intents', name: 'listIntents' },
  },
  getPaymentIntent: {
    tag: 'Payment intents',
    method: 'get',
    path: '/payment-intents/{id}',
    summary: 'Get a payment intent',
    params: idParams,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound],
    functionName: 'paymentIntentsGet',
    handler: 'payment-intents/get',
    role: 'AdminReadRole',
    operation: { domain: 'payment-intents', name: 'getIntent' },
  },
  completePaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/complete',
    summary: 'Complete a pending or processing payment intent',
    params: idParams,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound, commonErrors.invalidState],
    transactional: true,
    functionName: 'paymentIntentsComplete',
    handler: 'payment-intents/complete',
    role: 'AdminLiquidityRole',
  },
  approvePaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/approve',
    summary: 'Approve a payment intent held for approval',
    description: 'A `pending_approval` intent becomes `pending` and takes payments (409 from any other state).',
    params: idParams,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound, commonErrors.invalidState],
    transactional: true,
    rowAction: true,
    functionName: 'paymentIntentsApprove',
    handler: 'payment-intents/approve',
    role: 'AdminChangeRole',
  },
  cancelPaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/cancel',
    summary: 'Cancel a payment intent held for approval',
    description: 'A `pending_approval` intent becomes `cancelled`, with the reason, and takes nothing ever (409 from any other state).',
    params: idParams,
    body: cancelIntentBody,
    status: 200,
    response: paymentIntent,
    problems: [intentErrors.notFound, commonErrors.invalidState],
    transactional: true,
    rowAction: true,
    functionName: 'paymentIntentsCancel',
    handler: 'payment-intents/cancel',
    role: 'AdminChangeRole',
  },
  withdrawPaymentIntent: {
    tag: 'Payment intents',
    method: 'post',
    path: '/payment-intents/{id}/withdraw',
    summary: 'Settle what the payment intent received to the FSP',
    params: idParams,
    status: 200,
    response: paymentIntentWithdrawal,
    problems: [intentErrors.notFound, ledgerErrors.concurrentWithdrawal, ledgerErrors.balanceTooLarge],
    transactional: true,
    rowAction: true,
    functionName: 'paymentIntentsWithdraw',
    handler: 'payment-intents/withdraw',
    role: 'AdminLiquidityRole',
    operation: { domain: 'payment-intents', name: 'withdrawIntent' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const paymentIntentsRoles = {
  // the intent; BatchGetItem: its asset's fees and its wallet address's standing in one read
  PaymentIntentsCreateRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'PutItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;
