import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { updatePeer } from '../../../lib/peers';
import { updatePeerBody } from '../../../lib/peers/schemas';

export const handler = adminRoute({ params: idParams, body: updatePeerBody, transactional: true }, async ({ params, body, node }) =>
  ok(await updatePeer(node, params.id, body)),
);
