import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { createAsset } from '../../../lib/assets';

export const handler = adminRoute(routes.createAsset, ({ body, node }) => createAsset(node, body));
