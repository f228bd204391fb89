import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { deleteTenant } from '../../../lib/tenants';

export const handler = adminRoute(routes.deleteTenant, async ({ params, node }) => {
  await deleteTenant(node, params.id);
});
