import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getAssetWithLiquidity } from '../../../lib/assets';

export const handler = adminRoute(routes.getAsset, ({ params, node }) => getAssetWithLiquidity(node, params.id));
