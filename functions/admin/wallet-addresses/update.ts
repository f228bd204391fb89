// Made from its route's declaration (updateWalletAddress, lib/api/routes/wallet-addresses.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { updateWalletAddress } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.updateWalletAddress, ({ params, body, node }) => updateWalletAddress(node, params.id, body));
