import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { deleteTenant } from '../../../lib/tenants';

export const handler = adminRoute(routes.deleteTenant, async ({ params, node }) => {
  await deleteTenant(node, params.id);
});
