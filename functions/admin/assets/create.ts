// Made from its route's declaration (createAsset, lib/api/routes/assets.ts) by infra/route-handlers.ts: change that, not this.
import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { createAsset } from '../../../lib/assets';

export const handler = adminRoute(routes.createAsset, ({ body, node }) => createAsset(node, body));
