import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { createWalletAddress } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.createWalletAddress, ({ body, node }) => createWalletAddress(node, body));
