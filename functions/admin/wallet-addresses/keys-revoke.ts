import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { revokeKey } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.revokeWalletAddressKey, ({ params, node }) => revokeKey(node, params.id, params.kid));
