// Made from its route's declaration (getWalletAddress, lib/api/routes/wallet-addresses.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getWalletAddress } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.getWalletAddress, ({ params, node }) => getWalletAddress(node, params.id));
