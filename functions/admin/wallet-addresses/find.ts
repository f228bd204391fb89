import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getWalletAddressByUrl, listWalletAddresses } from '../../../lib/wallet-addresses';

// One route, two answers: the wallet address at `address`, or without it a page of all of them.
export const handler = adminRoute(routes.findWalletAddress, async ({ query, node }) =>
  query.address === undefined ? await listWalletAddresses(node, query) : await getWalletAddressByUrl(node, query.address),
);
