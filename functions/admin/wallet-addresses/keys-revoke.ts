import { adminRoute, ok } from '../../../lib/http/admin';
import { revokeKey } from '../../../lib/wallet-addresses';
import { keyParams } from '../../../lib/wallet-addresses/schemas';

export const handler = adminRoute({ params: keyParams }, async ({ params, node }) => ok(await revokeKey(node, params.id, params.kid)));
