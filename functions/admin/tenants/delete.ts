import { adminRoute, noContent } from '../../../lib/http/admin';
import { deleteTenant } from '../../../lib/tenants';
import { tenantParams } from '../../../lib/tenants/schemas';

export const handler = adminRoute({ params: tenantParams, transactional: true, operatorOnly: true }, async ({ params, node }) => {
  await deleteTenant(node, params.id);
  return noContent();
});
