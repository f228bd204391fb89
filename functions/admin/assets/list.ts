import { listAssets } from '../../../lib/assets';
import { adminRoute, ok } from '../../../lib/http/admin';
import { pageQuery } from '../../../lib/http/schemas';

export const handler = adminRoute({ query: pageQuery }, async ({ query }) => ok(await listAssets(query.limit, query.cursor)));
