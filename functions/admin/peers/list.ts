import { adminRoute, ok } from '../../../lib/http/admin';
import { pageQuery } from '../../../lib/http/schemas';
import { listPeers } from '../../../lib/peers';

export const handler = adminRoute({ query: pageQuery }, async ({ query }) => ok(await listPeers(query.limit, query.cursor)));
