import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { deletePeer } from '../../../lib/peers';

export const handler = adminRoute(routes.deletePeer, async ({ params, node }) => {
  await deletePeer(node, params.id);
});
