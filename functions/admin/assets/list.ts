import { listAssets } from '../../../lib/assets';
import { pageQuery } from '../../../lib/http/schemas';
import { adminRoute, ok } from '../../../lib/http/admin';

export const handler = adminRoute({ query: pageQuery }, async ({ query }) => ok(await listAssets(query.limit, query.cursor)));
