import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { getPeer } from '../../../lib/peers';

export const handler = adminRoute({ params: idParams }, async ({ params, node }) => ok(await getPeer(node, params.id)));
