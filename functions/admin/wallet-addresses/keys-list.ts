import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';
import { listKeys } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.listWalletAddressKeys, async ({ params, node }) => ({ items: await listKeys(node, params.id) }));
