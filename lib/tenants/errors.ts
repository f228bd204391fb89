import { errorCatalog } from '../shared/errors';

export const tenantErrors = errorCatalog({
  notFound: { code: 'tenant_not_found', status: 404, title: 'No tenant with this id', detail: (id: string) => `No tenant with id ${id}` },
  operatorOnly: {
    code: 'operator_only',
    status: 403,
    title: "Only the deployment's operator may do this",
    detail: () => "Only the deployment's operator may manage tenants: send the request without a tenant-id header, signed with the operator's secret",
  },
  operatorFixed: {
    code: 'operator_tenant_fixed',
    status: 409,
    title: "The operator tenant is the deployment: its settings are the deployment's",
    detail: (action: string) => `The operator tenant cannot be ${action}: it is the deployment itself, set by its configuration`,
  },
  prefixHoldsAddresses: {
    code: 'wallet_address_prefix_in_use',
    status: 409,
    title: "The operator's wallet addresses are at or under this prefix",
    detail: (prefix: string) => `The operator has wallet addresses at or under ${prefix}: a tenant's prefix holds only the tenant's`,
  },
  prefixTaken: {
    code: 'wallet_address_prefix_taken',
    status: 409,
    title: "Another active tenant's wallet address prefix is this one, or above or below it",
    detail: (prefix: string, tenantId: string, how: 'equal' | 'above' | 'below') =>
      how === 'equal'
        ? `Tenant ${tenantId} has the wallet address prefix ${prefix}`
        : `The wallet address prefix ${prefix} is ${how} tenant ${tenantId}'s: one tenant's wallet addresses may not be under another's`,
  },
  suffixTaken: {
    code: 'ilp_address_suffix_taken',
    status: 409,
    title: 'Another tenant has this ILP address suffix',
    detail: (suffix: string) => `Another tenant has the ILP address suffix ${suffix} (a deleted tenant keeps its own)`,
  },
  changed: {
    code: 'tenant_changed',
    status: 409,
    title: 'Another request changed the tenant meanwhile; read it again and retry',
    detail: (id: string) => `Tenant ${id} was changed by another request meanwhile; read it again and retry`,
  },
  idempotencyKeyRefused: {
    code: 'idempotency_key_refused',
    status: 400,
    title: 'This route takes no Idempotency-Key: its answer holds secrets, which are never stored',
    detail: () =>
      'POST /tenants takes no Idempotency-Key: its answer holds the secrets, which are never stored to be replayed. A retry is safe without one: the prefix is unique, so a second POST is 409 naming the tenant made',
  },
});
