// The Admin API's routes of the tag Search, each declared once (./route.ts says what a declaration holds).
import { searchQuery, searchResult } from '../../search/schemas';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles } from './route';

export const searchRoutes = declareRoutes({
  search: {
    tag: 'Search',
    method: 'get',
    path: '/search',
    summary: 'Find anything by its id or URL',
    description:
      "What `q` names among this tenant's objects: a payment, payment intent, quote, wallet address, peer, liquidity withdrawal, grant, " +
      'webhook event or asset by its id (or a ledger account naming one, `payment:<id>`), a wallet address by its URL, ' +
      "and a payment intent, payment or quote by this node's Open Payments URL. Each by its key, in one read: no list is scanned. " +
      'Nothing found is an empty `items`. (Audit events are in the write-once store, listed by time: `GET /audit-events`.)',
    query: searchQuery,
    status: 200,
    response: searchResult,
    functionName: 'search',
    handler: 'search/search',
    role: 'SearchRole',
    operation: { domain: 'search', name: 'search' },
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts).
export const searchRoles = {
  // GET /search: one BatchGetItem across the tables that hold what an id can name
  SearchRole: {
    MainTable: ['GetItem', 'BatchGetItem'], // GetItem: the tenant of the request
    AuthTable: ['BatchGetItem'],
    WebhookEventsTable: ['BatchGetItem'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;
