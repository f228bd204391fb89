// The Admin API's routes of the tag Quotes, each declared once (./route.ts says what a declaration holds).
import { ilpErrors } from '../../ilp/errors';
import { intentErrors } from '../../payment-intents/errors';
import { quoteErrors } from '../../quotes/errors';
import { createQuoteBody, quote } from '../../quotes/schemas';
import { rateErrors } from '../../rates/errors';
import { walletAddressErrors } from '../../wallet-addresses/errors';
import { declareRoutes, type FunctionRoles, idParams } from './route';

export const quotesRoutes = declareRoutes({
  createQuote: {
    tag: 'Quotes',
    method: 'post',
    path: '/quotes',
    summary: 'Create a quote',
    description:
      "On the sender's wallet address, to a payment intent of this node (its id or URL) or to an incoming payment on " +
      'another node, whose route is probed over Interledger (502 when that node or the peer fails).',
    body: createQuoteBody,
    status: 201,
    response: quote,
    problems: [
      walletAddressErrors.unknown,
      walletAddressErrors.inactive,
      ilpErrors.receiverNotFound,
      ilpErrors.receiverNotOpen,
      intentErrors.assetMismatch,
      quoteErrors.amountRequired,
      quoteErrors.amountTooSmall,
      quoteErrors.amountExceedsRemaining,
      rateErrors.unavailable,
      ilpErrors.noRoute,
      ilpErrors.insufficientExchangeRate,
      ilpErrors.receiverUnreachable,
      ilpErrors.receiverInvalid,
      ilpErrors.peerRefused,
      ilpErrors.peerUnreachable,
      ilpErrors.rateProbeFailed,
    ],
    transactional: true,
    creates: 'QUOTE',
    functionName: 'quotesCreate',
    handler: 'quotes/create',
    role: 'QuotesCreateRole',
  },
  getQuote: {
    tag: 'Quotes',
    method: 'get',
    path: '/quotes/{id}',
    summary: 'Get a quote',
    params: idParams,
    status: 200,
    response: quote,
    problems: [quoteErrors.notFound],
    functionName: 'quotesGet',
    handler: 'quotes/get',
    role: 'AdminReadRole',
    operation: { domain: 'quotes', name: 'getQuote' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const quotesRoles = {
  // also reads receivers on other nodes, as this service's Open Payments client;
  // BatchGetItem: the intent, the sender's asset and its standing in one read
  QuotesCreateRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'PutItem', 'Query'],
    'MainTable/index': ['Query'],
    RatesTable: ['GetItem', 'BatchGetItem', 'BatchWriteItem', 'Query'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ['ADMIN_API_SECRET', 'tenants/*/ADMIN_API_SECRET', 'OPEN_PAYMENTS_CLIENT_SECRET'],
  },
} satisfies FunctionRoles;
