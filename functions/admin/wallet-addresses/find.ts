import { adminRoute, ok } from '../../../lib/http/admin';
import { getWalletAddressByUrl, listWalletAddresses } from '../../../lib/wallet-addresses';
import { walletAddressesQuery } from '../../../lib/wallet-addresses/schemas';

// One route, two answers: the wallet address at `address`, or without it a page of all of them.
export const handler = adminRoute({ query: walletAddressesQuery }, async ({ query, node }) =>
  ok(query.address === undefined ? await listWalletAddresses(node, query) : await getWalletAddressByUrl(node, query.address)),
);
