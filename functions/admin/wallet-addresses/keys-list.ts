import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listKeys } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.listWalletAddressKeys, async ({ params, node }) => ({ items: await listKeys(node, params.id) }));
