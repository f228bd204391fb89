import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { getWalletAddress } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.getWalletAddress, ({ params, node }) => getWalletAddress(node, params.id));
