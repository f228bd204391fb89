// The Admin API's routes of the tag Rates, each declared once (./route.ts says what a declaration holds).
import { peerErrors } from '../../peers/errors';
import { rateErrors } from '../../rates/errors';
import { pushRateBody, rate, rateQuery } from '../../rates/schemas';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles } from './route';

export const ratesRoutes = declareRoutes({
  pushRate: {
    tag: 'Rates',
    method: 'post',
    path: '/rates',
    summary: 'Push an exchange rate',
    description: 'With `peerId`: the rate for that peer; without: FSP-wide.',
    body: pushRateBody,
    status: 201,
    response: rate,
    problems: [peerErrors.unknown],
    transactional: true,
    functionName: 'ratesPush',
    handler: 'rates/push',
    role: 'RatesPushRole',
    operation: { domain: 'rates', name: 'pushRate' },
  },
  getRate: {
    tag: 'Rates',
    method: 'get',
    path: '/rates',
    summary: 'Get the rate the service would use now',
    description: 'A pushed rate, else a pulled one from the cache, else one pulled from the FSP now.',
    query: rateQuery,
    status: 200,
    response: rate,
    problems: [peerErrors.unknown, rateErrors.unavailable],
    functionName: 'ratesResolve',
    handler: 'rates/resolve',
    role: 'RatesResolveRole',
    operation: { domain: 'rates', name: 'lookUpRate' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const ratesRoles = {
  RatesPushRole: {
    MainTable: ['GetItem', 'PutItem'],
    RatesTable: ['GetItem', 'PutItem'], // the store's one get by key (lib/platform/store getOne) serves both tables' reads
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
  // GET /rates: caches what it pulls
  RatesResolveRole: {
    MainTable: ['GetItem'],
    RatesTable: ['GetItem', 'BatchGetItem', 'BatchWriteItem'], // GetItem: as RatesPushRole's
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;
