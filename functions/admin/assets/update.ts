// Made from its route's declaration (updateAsset, lib/api/routes/assets.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { updateAsset } from '../../../lib/assets';

export const handler = adminRoute(routes.updateAsset, ({ params, body, node }) => updateAsset(node, params.id, body));
