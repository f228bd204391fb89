import { adminRoute, created } from '../../../lib/http/admin';
import { createPeer } from '../../../lib/peers';
import { createPeerBody } from '../../../lib/peers/schemas';

export const handler = adminRoute({ body: createPeerBody, transactional: true }, async ({ body, node }) => created(await createPeer(node, body)));
