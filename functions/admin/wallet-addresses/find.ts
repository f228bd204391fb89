import { adminRoute, ok } from '../../../lib/http/admin';
import { getWalletAddressByUrl } from '../../../lib/wallet-addresses';
import { findWalletAddressQuery } from '../../../lib/wallet-addresses/schemas';

export const handler = adminRoute({ query: findWalletAddressQuery }, async ({ query, node }) => ok(await getWalletAddressByUrl(node, query.address)));
