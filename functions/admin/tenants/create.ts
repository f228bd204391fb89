import { adminRoute, created } from '../../../lib/http/admin';
import { createTenant } from '../../../lib/tenants';
import { createTenantBody } from '../../../lib/tenants/schemas';

export const handler = adminRoute({ body: createTenantBody, transactional: true, operatorOnly: true, answersSecrets: true }, async ({ body, node }) =>
  created(await createTenant(node, body)),
);
