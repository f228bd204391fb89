import { getAssetWithLiquidity } from '../../../lib/assets';
import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.getAsset, ({ params, node }) => getAssetWithLiquidity(node, params.id));
