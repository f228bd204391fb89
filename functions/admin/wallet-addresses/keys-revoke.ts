import { adminRoute, ok } from '../../../lib/http/admin';
import { revokeKey } from '../../../lib/wallet-addresses';
import { keyParams } from '../../../lib/wallet-addresses/schemas';

export const handler = adminRoute({ params: keyParams }, async ({ params }) => ok(await revokeKey(params.id, params.kid)));
