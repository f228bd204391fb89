import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getWalletAddress } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.getWalletAddress, ({ params, node }) => getWalletAddress(node, params.id));
