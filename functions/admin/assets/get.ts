import { getAssetWithLiquidity } from '../../../lib/assets';
import { adminRoute, ok } from '../../../lib/http/admin';
import { idParams } from '../../../lib/http/schemas';

export const handler = adminRoute({ params: idParams }, async ({ params, node }) => ok(await getAssetWithLiquidity(node, params.id)));
