import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';
import { listKeys } from '../../../lib/wallet-addresses';

export const handler = adminRoute({ params: idParams }, async ({ params, node }) => ok({ items: await listKeys(node, params.id) }));
