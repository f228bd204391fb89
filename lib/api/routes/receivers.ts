// The Admin API's routes of the tag Receivers, each declared once (./route.ts says what a declaration holds).
import { ilpErrors } from '../../ilp/errors';
import { intentErrors } from '../../payment-intents/errors';
import { completeReceiverBody, createReceiverBody, receiver, receiverQuery } from '../../receivers/schemas';
import { commonErrors } from '../../shared/errors';
import { walletAddressErrors } from '../../wallet-addresses/errors';
import { declareRoutes, type FunctionRoles } from './route';

const remoteProblems = [ilpErrors.receiverNotFound, ilpErrors.receiverUnreachable, ilpErrors.receiverInvalid];

export const receiversRoutes = declareRoutes({
  createReceiver: {
    tag: 'Receivers',
    method: 'post',
    path: '/receivers',
    summary: 'Create a receiver',
    description:
      "An incoming payment on the wallet address at `walletAddressUrl`: this node's (a payment intent), or another node's, made there " +
      "over Open Payments as this node's own client. Its `id` is what a quote's `receiver` takes.",
    body: createReceiverBody,
    status: 201,
    response: receiver,
    problems: [walletAddressErrors.unknown, walletAddressErrors.inactive, intentErrors.assetMismatch, ...remoteProblems],
    transactional: true,
    functionName: 'receiversCreate',
    handler: 'receivers/create',
    role: 'ReceiversCreateRole',
    operation: { domain: 'receivers', name: 'createReceiver' },
  },
  getReceiver: {
    tag: 'Receivers',
    method: 'get',
    path: '/receivers',
    summary: 'Get a receiver by its URL',
    description: 'The incoming payment at `url`, on this node or another, as its payer sees it: amounts, whether it is completed, its metadata.',
    query: receiverQuery,
    status: 200,
    response: receiver,
    problems: [intentErrors.notFound, ...remoteProblems],
    functionName: 'receiversGet',
    handler: 'receivers/get',
    role: 'ReceiversGetRole',
    operation: { domain: 'receivers', name: 'getReceiver' },
  },
  completeReceiver: {
    tag: 'Receivers',
    method: 'post',
    path: '/receivers/complete',
    summary: 'Complete a receiver',
    description:
      'The incoming payment at `url` takes no more payments: on this node as POST /payment-intents/{id}/complete does, on another over Open Payments.',
    body: completeReceiverBody,
    status: 200,
    response: receiver,
    problems: [intentErrors.notFound, commonErrors.invalidState, ...remoteProblems],
    transactional: true,
    functionName: 'receiversComplete',
    handler: 'receivers/complete',
    role: 'ReceiversCompleteRole',
    operation: { domain: 'receivers', name: 'completeReceiver' },
  },
});

// Each also acts as this service's Open Payments client of other nodes (its identity's secret).
// (The lists are written out: a shared constant would stay in every Admin bundle, which the role
// test reads as a call.)
export const receiversRoles = {
  ReceiversCreateRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'PutItem', 'Query'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ['ADMIN_API_SECRET', 'tenants/*/ADMIN_API_SECRET', 'OPEN_PAYMENTS_CLIENT_SECRET'],
  },
  ReceiversGetRole: {
    MainTable: ['GetItem', 'PutItem', 'Query'],
    secrets: ['ADMIN_API_SECRET', 'tenants/*/ADMIN_API_SECRET', 'OPEN_PAYMENTS_CLIENT_SECRET'],
  },
  ReceiversCompleteRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'Query'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ['ADMIN_API_SECRET', 'tenants/*/ADMIN_API_SECRET', 'OPEN_PAYMENTS_CLIENT_SECRET'],
  },
} satisfies FunctionRoles;
