import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { getWalletAddress } from '../../../lib/wallet-addresses';

export const handler = adminRoute({ params: idParams }, async ({ params, node }) => ok(await getWalletAddress(node, params.id)));
