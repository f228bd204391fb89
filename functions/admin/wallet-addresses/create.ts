// Made from its route's declaration (createWalletAddress, lib/api/routes/wallet-addresses.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { createWalletAddress } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.createWalletAddress, ({ body, node }) => createWalletAddress(node, body));
