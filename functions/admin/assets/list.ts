import { listAssets } from '../../../lib/assets';
import { adminRoute, ok } from '../../../lib/http/admin';
import { pageQuery } from '../../../lib/values';

export const handler = adminRoute({ query: pageQuery }, async ({ query, node }) => ok(await listAssets(node, query.limit, query.cursor)));
