// Made from its route's declaration (createWalletAddressKey, lib/api/routes/wallet-addresses.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { addKey } from '../../../lib/wallet-addresses';

export const handler = adminRoute(routes.createWalletAddressKey, ({ params, body, node }) => addKey(node, params.id, body));
