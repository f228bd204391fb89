import { adminRoute, ok } from '../../../lib/http/admin';
import { updateTenant } from '../../../lib/tenants';
import { tenantParams, updateTenantBody } from '../../../lib/tenants/schemas';

export const handler = adminRoute({ params: tenantParams, body: updateTenantBody, transactional: true, operatorOnly: true }, async ({ params, body, node }) =>
  ok(await updateTenant(node, params.id, body)),
);
