import { adminRoute, ok } from '../../../lib/http/admin';
import { listPeers } from '../../../lib/peers';
import { pageQuery } from '../../../lib/values';

export const handler = adminRoute({ query: pageQuery }, async ({ query, node }) => ok(await listPeers(node, query.limit, query.cursor)));
