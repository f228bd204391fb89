import { adminRoute, noContent } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { deletePeer } from '../../../lib/peers';

export const handler = adminRoute({ params: idParams, transactional: true }, async ({ params, node }) => {
  await deletePeer(node, params.id);
  return noContent();
});
