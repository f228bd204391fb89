import { listAssets } from '../../../lib/assets';
import { adminRoute } from '../../../lib/http/admin';
import { routes } from '../../../lib/routes';

export const handler = adminRoute(routes.listAssets, ({ query, node }) => listAssets(node, query.limit, query.cursor));
