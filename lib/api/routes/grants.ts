// The Admin API's routes of the tag Grants, each declared once (./route.ts says what a declaration holds).
import { grant, grantsQuery } from '../../auth-server/admin-schemas';
import { authErrors } from '../../auth-server/errors';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, idParams, page } from './route';

export const grantPage = page(grant);

export const grantsRoutes = declareRoutes({
  listGrants: {
    tag: 'Grants',
    method: 'get',
    path: '/grants',
    summary: 'List Open Payments grants, newest first',
    description:
      'Filtered by `walletAddress` (the id or URL of the wallet address a grant is for), `client` (the wallet address of the app it ' +
      'was given to) and `state`.',
    query: grantsQuery,
    status: 200,
    response: grantPage,
    functionName: 'grantsList',
    handler: 'grants/list',
    role: 'GrantsListRole',
    operation: { domain: 'auth-server', name: 'listGrants' },
  },
  getGrant: {
    tag: 'Grants',
    method: 'get',
    path: '/grants/{id}',
    summary: 'Get an Open Payments grant',
    description: 'Its client, what it gives access to, its state and the wallet address it is for; never its token.',
    params: idParams,
    status: 200,
    response: grant,
    problems: [authErrors.grantNotFound],
    functionName: 'grantsGet',
    handler: 'grants/get',
    role: 'GrantsGetRole',
    operation: { domain: 'auth-server', name: 'getGrant' },
  },
  revokeGrant: {
    tag: 'Grants',
    method: 'post',
    path: '/grants/{id}/revoke',
    summary: 'Revoke an Open Payments grant and its access token',
    description:
      'The grant becomes `revoked` and its access token stops working at once (introspection answers it inactive). ' +
      'A grant revoked or rejected before is answered as it is. Each revocation emits `grant.revoked`.',
    params: idParams,
    status: 200,
    response: grant,
    problems: [authErrors.grantNotFound],
    transactional: true,
    rowAction: true,
    functionName: 'grantsRevoke',
    handler: 'grants/revoke',
    role: 'GrantsRevokeRole',
    operation: { domain: 'auth-server', name: 'revokeGrantByFsp' },
  },
});

// The roles of these routes' own functions: the authorization server's table (AuthTable), its grants
// read, listed by its index and revoked with the grant's event (an outbox item) in the main table; a
// list by wallet address id reads its record.
export const grantsRoles = {
  GrantsListRole: {
    MainTable: ['GetItem', 'Query'], // Query: the list helper, shared with the main table's lists
    AuthTable: ['GetItem', 'Query'], // GetItem: the store's one get by key (getOne), as MainTable's
    'AuthTable/index': ['Query'],
    secrets: ADMIN_API_SECRETS,
  },
  GrantsGetRole: {
    MainTable: ['GetItem'], // the tenant of the request
    AuthTable: ['GetItem'],
    secrets: ADMIN_API_SECRETS,
  },
  GrantsRevokeRole: {
    MainTable: ['GetItem', 'PutItem'],
    AuthTable: ['GetItem', 'UpdateItem'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
    secrets: ADMIN_API_SECRETS,
  },
} satisfies FunctionRoles;
