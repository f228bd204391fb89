import { adminRoute, noContent } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { deletePeer } from '../../../lib/peers';

export const handler = adminRoute({ params: idParams, transactional: true }, async ({ params }) => {
  await deletePeer(params.id);
  return noContent();
});
