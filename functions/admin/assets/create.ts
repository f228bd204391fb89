import { createAsset } from '../../../lib/assets';
import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.createAsset, ({ body, node }) => createAsset(node, body));
