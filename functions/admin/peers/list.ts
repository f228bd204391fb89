import { adminRoute, ok } from '../../../lib/http/admin';
import { pageQuery } from '../../../lib/http/schemas';
import { listPeers } from '../../../lib/peers';

export const handler = adminRoute({ query: pageQuery }, async ({ query, node }) => ok(await listPeers(node, query.limit, query.cursor)));
