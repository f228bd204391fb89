import { adminRoute } from '../../../lib/http/admin';
import { deletePeer } from '../../../lib/peers';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.deletePeer, async ({ params, node }) => {
  await deletePeer(node, params.id);
});
