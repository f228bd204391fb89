// The Admin API's routes of the tag Tenants, each declared once (./route.ts says what a declaration holds).
import { pageQuery } from '../../shared/values';
import { tenantErrors } from '../../tenants/errors';
import { createdTenant, createTenantBody, tenant, tenantParams, updateTenantBody } from '../../tenants/schemas';
import { ADMIN_API_SECRETS } from './roles';
import { declareRoutes, type FunctionRoles, page } from './route';

export const tenantPage = page(tenant);

export const tenantsRoutes = declareRoutes({
  createTenant: {
    tag: 'Tenants',
    method: 'post',
    path: '/tenants',
    summary: 'Create a tenant',
    description:
      "The answer holds the tenant's secrets (`adminApiSecret`, `webhookSecret`, `idpSecret`), shown this once. An " +
      'Idempotency-Key is refused (400 `idempotency_key_refused`: the answer is never stored); a retry is safe without ' +
      'one, as a second tenant on the same prefix is 409 `wallet_address_prefix_taken`, naming the first. The prefix is a URL under WALLET_ADDRESS_URL, ' +
      "neither equal to, above nor below another active tenant's.",
    body: createTenantBody,
    status: 201,
    response: createdTenant,
    problems: [
      tenantErrors.operatorOnly,
      tenantErrors.idempotencyKeyRefused,
      tenantErrors.prefixTaken,
      tenantErrors.prefixHoldsAddresses,
      tenantErrors.suffixTaken,
      tenantErrors.changed,
    ],
    transactional: true,
    operatorOnly: true,
    answersSecrets: true,
    functionName: 'tenantsCreate',
    handler: 'tenants/create',
    role: 'TenantsCreateRole',
    operation: { domain: 'tenants', name: 'createTenant' },
  },
  listTenants: {
    tag: 'Tenants',
    method: 'get',
    path: '/tenants',
    summary: 'List tenants, newest first',
    description: "Those the operator made, deleted ones too; the operator's own is `GET /tenants/operator`.",
    query: pageQuery,
    status: 200,
    response: tenantPage,
    problems: [tenantErrors.operatorOnly],
    operatorOnly: true,
    functionName: 'tenantsList',
    handler: 'tenants/list',
    role: 'AdminListRole',
  },
  getTenant: {
    tag: 'Tenants',
    method: 'get',
    path: '/tenants/{id}',
    summary: 'Get a tenant',
    description: "`operator`: the operator's own, which is the deployment's settings. Never the secrets.",
    params: tenantParams,
    status: 200,
    response: tenant,
    problems: [tenantErrors.operatorOnly, tenantErrors.notFound],
    operatorOnly: true,
    functionName: 'tenantsGet',
    handler: 'tenants/get',
    role: 'AdminReadRole',
    operation: { domain: 'tenants', name: 'getTenant' },
  },
  updateTenant: {
    tag: 'Tenants',
    method: 'patch',
    path: '/tenants/{id}',
    summary: "Change a tenant's name, URLs or webhook dialect",
    description: "`null` removes a URL, or the webhook dialect (the deployment's WEBHOOK_DIALECT applies). The prefix and the ILP address suffix never change.",
    params: tenantParams,
    body: updateTenantBody,
    status: 200,
    response: tenant,
    problems: [tenantErrors.operatorOnly, tenantErrors.notFound, tenantErrors.operatorFixed, tenantErrors.changed],
    transactional: true,
    operatorOnly: true,
    functionName: 'tenantsUpdate',
    handler: 'tenants/update',
    role: 'TenantsUpdateRole',
    operation: { domain: 'tenants', name: 'updateTenant' },
  },
  deleteTenant: {
    tag: 'Tenants',
    method: 'delete',
    path: '/tenants/{id}',
    summary: 'Delete a tenant',
    description:
      "Soft: its credentials are refused at once, its secrets are scheduled for deletion (7 days' recovery window), its " +
      'data is kept and its prefix is free for another tenant. Deleting a deleted tenant again is 204.',
    params: tenantParams,
    status: 204,
    problems: [tenantErrors.operatorOnly, tenantErrors.notFound, tenantErrors.operatorFixed, tenantErrors.changed],
    transactional: true,
    operatorOnly: true,
    functionName: 'tenantsDelete',
    handler: 'tenants/delete',
    role: 'TenantsDeleteRole',
  },
});

// The roles of these routes' own functions (those they share are in ./roles.ts): the tenants' records
// and claims in the main table, their secrets made (POST: each with its resource policy and its
// rotation by the rotation function, which RotateSecret needs the right to invoke) and scheduled for
// deletion (DELETE, and a POST that could not make its tenant).
export const tenantsRoles = {
  TenantsCreateRole: {
    MainTable: ['GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'Query'],
    'MainTable/index': ['Query'],
    IdempotencyTable: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'], // bundled as on every POST, though the route refuses an Idempotency-Key
    secrets: ADMIN_API_SECRETS,
    'secrets tenants/*': ['CreateSecret', 'DeleteSecret', 'PutResourcePolicy', 'RotateSecret'],
    SecretsRotateLambdaFunction: ['InvokeFunction'],
  },
  TenantsUpdateRole: {
    MainTable: ['GetItem', 'PutItem'],
    secrets: ADMIN_API_SECRETS,
  },
  TenantsDeleteRole: {
    MainTable: ['GetItem', 'PutItem', 'UpdateItem'],
    secrets: ADMIN_API_SECRETS,
    'secrets tenants/*': ['DeleteSecret'],
  },
} satisfies FunctionRoles;
