import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { updateWalletAddress } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.updateWalletAddress, ({ params, body, node }) => updateWalletAddress(node, params.id, body));
