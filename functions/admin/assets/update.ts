import { updateAsset } from '../../../lib/assets';
import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.updateAsset, ({ params, body, node }) => updateAsset(node, params.id, body));
