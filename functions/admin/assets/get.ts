// Made from its route's declaration (getAsset, lib/api/routes/assets.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { getAssetWithLiquidity } from '../../../lib/assets';

export const handler = adminRoute(routes.getAsset, ({ params, node }) => getAssetWithLiquidity(node, params.id));
