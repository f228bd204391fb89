import { DomainError } from '../../../lib/errors';
import { adminRoute, ok } from '../../../lib/http/admin';
import { findWalletAddressByUrl } from '../../../lib/wallet-addresses';
import { findWalletAddressQuery } from '../../../lib/wallet-addresses/schemas';

export const handler = adminRoute({ query: findWalletAddressQuery }, async ({ query }) => {
  const wallet = await findWalletAddressByUrl(query.address);
  if (!wallet) throw new DomainError('not_found', 'wallet_address_not_found', `No wallet address ${query.address}`);
  return ok(wallet);
});
