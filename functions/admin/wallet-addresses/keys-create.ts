import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { addKey } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.createWalletAddressKey, ({ params, body, node }) => addKey(node, params.id, body));
