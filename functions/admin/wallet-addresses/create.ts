import { adminRoute, created } from '../../../lib/http/admin';
import { createWalletAddress } from '../../../lib/wallet-addresses';
import { createWalletAddressBody } from '../../../lib/wallet-addresses/schemas';

export const handler = adminRoute({ body: createWalletAddressBody, transactional: true }, async ({ body, node }) =>
  created(await createWalletAddress(node, body)),
);
