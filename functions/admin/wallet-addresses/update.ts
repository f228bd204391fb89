import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { renameWalletAddress } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.updateWalletAddress, ({ params, body, node }) => renameWalletAddress(node, params.id, body.publicName));
