import { adminRoute, ok } from '../../../lib/http/admin';
import { getWalletAddressByUrl } from '../../../lib/wallet-addresses';
import { findWalletAddressQuery } from '../../../lib/wallet-addresses/schemas';

export const handler = adminRoute({ query: findWalletAddressQuery }, async ({ query }) => ok(await getWalletAddressByUrl(query.address)));
