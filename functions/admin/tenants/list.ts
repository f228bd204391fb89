import { adminRoute, ok } from '../../../lib/http/admin';
import { listTenants } from '../../../lib/tenants';
import { pageQuery } from '../../../lib/values';

export const handler = adminRoute({ query: pageQuery, operatorOnly: true }, async ({ query, node }) => ok(await listTenants(node, query.limit, query.cursor)));
