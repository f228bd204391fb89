import { adminRoute } from '../../../lib/api/http/admin';
import { routes } from '../../../lib/api/routes';
import { listAssets } from '../../../lib/assets';

export const handler = adminRoute(routes.listAssets, ({ query, node }) => listAssets(node, query.limit, query.cursor));
