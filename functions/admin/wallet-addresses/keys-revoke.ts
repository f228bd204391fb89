// Made from its route's declaration (revokeWalletAddressKey, lib/api/routes/wallet-addresses.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { revokeKey } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.revokeWalletAddressKey, ({ params, node }) => revokeKey(node, params.id, params.kid));
