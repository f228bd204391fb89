import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { renameWalletAddress } from '../../../lib/wallet-addresses';
import { updateWalletAddressBody } from '../../../lib/wallet-addresses/schemas';

export const handler = adminRoute({ params: idParams, body: updateWalletAddressBody }, async ({ params, body, node }) =>
  ok(await renameWalletAddress(node, params.id, body.publicName)),
);
